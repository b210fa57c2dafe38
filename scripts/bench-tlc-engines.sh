#!/usr/bin/env bash
# Executions per second of one model-guided campaign with each model
# engine, back to back: --tlc java (TLC itself), --tlc subprocess (the
# native sidecar) and --tlc inproc, the same system, model, seed and
# iterations; only the engine changes. Per campaign: CPU seconds (user+sys
# of modelfuzz and its engine process, /usr/bin/time), wall seconds,
# executions per CPU-second and per wall-second, and the load. For java
# also the JVM's start-up apart (compiling the server, when not cached,
# and the JVM's start to its first answer, wall, from the campaign's log)
# and its warm-up: the wall rate over the first WARM iterations against
# the rate after them (from --series).
#
#   scripts/bench-tlc-engines.sh                   ITER=1000 WARM=200 on raft.tla
#   ITER=300 ARGS='--adapter microbench --model microbench.tla' scripts/bench-tlc-engines.sh
set -euo pipefail
cd "$(dirname "$0")/.."
ITER=${ITER:-1000}
WARM=${WARM:-200}
ARGS=${ARGS:---model raft.tla}
JAR=${TLA2TOOLS:-../shared/tools/tlc/tla2tools.jar}
MODES=${MODES:-java subprocess inproc}
if [ ! -f "$JAR" ] || ! command -v javac >/dev/null; then
	echo "bench-tlc-engines: no TLC jar at $JAR or no JDK: java skipped"
	MODES=${MODES//java/}
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/modelfuzz" ./cmd/modelfuzz
printf '%-11s %8s %8s %10s %10s  %s\n' engine cpu_s wall_s exec/cpu-s exec/wall-s notes
for mode in $MODES; do
	extra=()
	[ "$mode" = java ] && extra=(--tla2tools "$JAR")
	load=$(cut -d' ' -f1 /proc/loadavg)
	# shellcheck disable=SC2086
	/usr/bin/time -f '%U %S %e' -o "$tmp/time" "$tmp/modelfuzz" run $ARGS --tlc "$mode" "${extra[@]}" \
		--iterations "$ITER" --seed 1 --corpus "$tmp/c-$mode" --series "$tmp/s-$mode" --series-every 10 \
		--minimize=false >"$tmp/log-$mode" 2>&1
	read -r u s e <"$tmp/time"
	cpu=$(echo "$u + $s" | bc)
	notes="load $load"
	if [ "$mode" = java ]; then
		start=$(grep -o 'compile=[^ ]* jvm_start=[^ ]*' "$tmp/log-$mode" || true)
		warm=$(awk -v w="$WARM" '{ match($0, /"iteration":[0-9]+/); i = substr($0, RSTART+12, RLENGTH-12) + 0;
			match($0, /"seconds":[0-9.e+-]+/); t = substr($0, RSTART+10, RLENGTH-10) + 0;
			if (i <= w) { wi = i; wt = t } last_i = i; last_t = t }
			END { if (wt > 0 && last_t > wt) printf "warm-up %.1f exec/s over the first %d, %.1f after", wi / wt, wi, (last_i - wi) / (last_t - wt) }' "$tmp/s-$mode")
		notes="$notes; $start; $warm"
	fi
	printf '%-11s %8.2f %8.2f %10.1f %10.1f  %s\n' "$mode" "$cpu" "$e" "$(echo "$ITER / $cpu" | bc -l)" "$(echo "$ITER / $e" | bc -l)" "$notes"
	grep -E 'coverage:' "$tmp/log-$mode" | sed 's/^/            /'
done
