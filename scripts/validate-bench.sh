#!/usr/bin/env bash
# Times `modelfuzz tlc validate` on prefixes of etcd raft's own example
# trace (tla/example.ndjson of go.etcd.io/raft/v3 in the module cache),
# with the unmodified Traceetcdraft.cfg (invariants checked) and with a
# copy of it whose INVARIANTS section is removed. Prints one line per run:
# invariants, events, seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
tla="$(go list -m -f '{{.Dir}}' go.etcd.io/raft/v3)/tla"
[ -f "$tla/example.ndjson" ] || { echo "no $tla/example.ndjson: go mod download go.etcd.io/raft/v3" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
go build -o "$work/modelfuzz" ./cmd/modelfuzz

# The spec without invariants: the same files, the cfg without INVARIANTS.
mkdir "$work/noinv"
cp "$tla"/*.tla "$work/noinv/"
awk '/^INVARIANTS/ {skip = 1; next} skip && /^[A-Z_]+[[:space:]]*$/ {skip = 0} !skip' \
	"$tla/Traceetcdraft.cfg" >"$work/noinv/Traceetcdraft.cfg"

total=$(grep -c . "$tla/example.ndjson")
printf '%-10s %7s %8s\n' invariants events seconds
for inv in yes no; do
	spec=()
	[ "$inv" = no ] && spec=(--spec "$work/noinv/Traceetcdraft.tla")
	for n in 1000 2000 3000 "$total"; do
		head -n "$n" "$tla/example.ndjson" >"$work/trace.ndjson"
		start=$(date +%s.%N)
		"$work/modelfuzz" tlc validate "${spec[@]}" "$work/trace.ndjson" >"$work/out" ||
			{ cat "$work/out" >&2; exit 1; }
		end=$(date +%s.%N)
		printf '%-10s %7d %8.2f\n' "$inv" "$n" "$(echo "$end - $start" | bc)"
	done
done
