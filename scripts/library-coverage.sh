#!/usr/bin/env bash
# Which statements of go.etcd.io/raft/v3 random inputs at the etcdraft
# defaults reach, and the library's functions they never reach.
#
#   scripts/library-coverage.sh [INPUTS]      (default 10000)
#
# Prints the total statement coverage, the never-reached functions outside
# the parts no RawNode application reaches (listed apart: the goroutine
# Node API in node.go, logging, the Describe and String functions, the
# generated protobuf code), and a count of those.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-10000}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
MODELFUZZ_LIBCOVER=$n go test -count=1 -run TestLibraryCoverageRun \
  -coverpkg=go.etcd.io/raft/v3/... -coverprofile="$tmp/cover.out" ./adapters/etcdraft/ | grep -o 'coverage: .*'
go tool cover -func="$tmp/cover.out" | sed 's|go.etcd.io/raft/v3/||' > "$tmp/func.txt"
apart='^(node\.go|logger\.go|util\.go|raftpb/raft\.pb\.go|state_trace_nop\.go)|[[:space:]](String|Describe|MarshalJSON|_)[[:space:]]'
echo
echo "never reached ($n random inputs):"
awk '$NF == "0.0%"' "$tmp/func.txt" | grep -Ev "$apart" | awk '{print "  " $1 " " $2}'
echo
echo "never reached in the parts no RawNode application reaches: $(awk '$NF == "0.0%"' "$tmp/func.txt" | grep -Ec "$apart") functions"
