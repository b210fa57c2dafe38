#!/usr/bin/env bash
# Measures the exhaustive checker at scale: `modelfuzz tlc check` on
# tlc/check/testdata/bench/Scale.tla (1,680,448 distinct states), with the
# maximum resident memory and the elapsed and CPU times from
# /usr/bin/time -v, and distinct states per second. With TLC_JAR set to a
# tla2tools.jar, TLC checks the same spec the same way for comparison.
# Usage: scripts/scale-bench.sh [WORKERS]   (default 2)
set -euo pipefail
cd "$(dirname "$0")/.."
workers="${1:-2}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
go build -o "$work/modelfuzz" ./cmd/modelfuzz
spec=tlc/check/testdata/bench

# measure NAME COMMAND...: runs COMMAND under /usr/bin/time -v and prints
# one line: name, distinct states, seconds, CPU seconds, max RSS, states/s.
measure() {
	local name="$1"
	shift
	/usr/bin/time -v "$@" >"$work/out" 2>"$work/time" || { cat "$work/out" "$work/time" >&2; exit 1; }
	local distinct wall user sys rss
	distinct=$(grep -Eo '([0-9]+) distinct states found' "$work/out" | tail -1 | grep -Eo '^[0-9]+')
	wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s}' "$work/time")
	user=$(awk -F': ' '/User time/ {print $2}' "$work/time")
	sys=$(awk -F': ' '/System time/ {print $2}' "$work/time")
	rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2 / 1024}' "$work/time")
	printf '%-9s %10s %9.1f %9.1f %9s %10.0f\n' "$name" "$distinct" "$wall" "$(echo "$user + $sys" | bc)" "$rss" "$(echo "$distinct / $wall" | bc -l)"
}

printf '%-9s %10s %9s %9s %9s %10s\n' checker distinct seconds cpu-s rss-MB states/s
measure modelfuzz "$work/modelfuzz" tlc check --workers "$workers" --config "$spec/Scale.cfg" "$spec/Scale.tla"
if [ -n "${TLC_JAR:-}" ]; then
	cp "$spec/Scale.tla" "$spec/Scale.cfg" "$work/"
	(cd "$work" && measure TLC java -XX:+UseParallelGC -cp "$TLC_JAR" tlc2.TLC -workers "$workers" -metadir "$work/states" -config Scale.cfg Scale.tla)
fi
