#!/usr/bin/env bash
# Runs the filter tests of tests/etcdraft against the unmodified library,
# where each must pass, and each test that names a bug of the library bug
# set ("# bug: NAME" in its file) against the library with that patch,
# where it must fail (the scenario exposes the bug).
# Usage: scripts/filter-tests.sh [EXECUTIONS]   (default: each test's own)
set -euo pipefail
cd "$(dirname "$0")/.."
execs=()
[[ $# -gt 0 ]] && execs=(--executions "$1")
mod=$(go list -m -f '{{.Dir}}' go.etcd.io/raft/v3)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -tags with_tla -o "$tmp/modelfuzz" ./cmd/modelfuzz
status=0
for f in tests/etcdraft/*.filter; do
  flags=$(sed -n 's/^# flags: //p' "$f" | head -1)
  # shellcheck disable=SC2086
  if "$tmp/modelfuzz" test --adapter etcdraft $flags "${execs[@]}" "$f" > "$tmp/out" 2>&1; then
    echo "unmodified library: $(head -1 "$tmp/out")"
  else
    echo "unmodified library, should pass: $(head -1 "$tmp/out")"; status=1
  fi
  bug=$(sed -n 's/^# bug: //p' "$f" | head -1)
  [[ -n $bug ]] || continue
  d=$tmp/$bug
  if [[ ! -x $d/modelfuzz ]]; then
    mkdir -p "$d"
    cp -r "$mod" "$d/raft"
    chmod -R u+w "$d/raft"
    patch -d "$d/raft" -p1 --quiet --forward --batch --fuzz=0 < "bugs/etcdraft/$bug.patch" > /dev/null
    cp go.mod go.sum "$d/"
    go mod edit -modfile="$d/go.mod" -replace "go.etcd.io/raft/v3=$d/raft"
    go build -modfile="$d/go.mod" -tags with_tla -o "$d/modelfuzz" ./cmd/modelfuzz
  fi
  # shellcheck disable=SC2086
  if "$d/modelfuzz" test --adapter etcdraft $flags "${execs[@]}" "$f" > "$tmp/out" 2>&1; then
    echo "with $bug, should fail: $(head -1 "$tmp/out")"; status=1
  else
    echo "with $bug: $(head -1 "$tmp/out"); $(sed -n 3p "$tmp/out" | sed 's/^ *//')"
  fi
done
exit $status
