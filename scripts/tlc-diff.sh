#!/usr/bin/env bash
# Differential testing of the native engine against TLC itself: campaigns
# with --tlc diff, which runs every execution's model actions through both
# engines (and one mutant of them: an action removed, duplicated, swapped
# or a parameter moved by one) and stops at the first answer on which they
# disagree (visited abstract states, divergence, invariants, choices),
# saving it under the corpus's tlc-diff/.
#
# Per model: N executions of random inputs (--strategy random) and N
# model-guided ones (mutants of the corpus's inputs, --strategy model).
# Models: raft.tla with each of its cfgs on etcd raft, microbench.tla on
# the micro-benchmark.
#
#   scripts/tlc-diff.sh                     N=5000 per strategy and model
#   N=50 scripts/tlc-diff.sh                a quick run (what make test runs)
#   ONLY='raft.cfg microbench' scripts/tlc-diff.sh
#
# Needs TLC's jar ($TLA2TOOLS, default ../shared/tools/tlc/tla2tools.jar)
# and a JDK; skips with a message without them. Exits 1 at a disagreement.
# Each campaign's log goes to $LOGDIR (default: a temporary directory,
# removed at the end) as NAME-STRATEGY.log, to follow a long run.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-5000}
JAR=${TLA2TOOLS:-../shared/tools/tlc/tla2tools.jar}
SEED=${SEED:-1}
if [ ! -f "$JAR" ]; then
	echo "tlc-diff: skipped: no TLC jar at $JAR (set TLA2TOOLS)"
	exit 0
fi
if ! command -v javac >/dev/null || ! command -v java >/dev/null; then
	echo "tlc-diff: skipped: no JDK (java and javac) on the PATH"
	exit 0
fi
BIN=$(mktemp -d)/modelfuzz
LOGDIR=${LOGDIR:-$(dirname "$BIN")/logs}
mkdir -p "$LOGDIR"
trap 'rm -rf "$(dirname "$BIN")"' EXIT
go build -o "$BIN" ./cmd/modelfuzz
RUNS=()
for cfg in raft.cfg raft_conf.cfg raft_order.cfg raft_paper.cfg raft_progress.cfg raft_reads.cfg raft_shape.cfg raft_standing.cfg; do
	RUNS+=("$cfg|--model raft.tla --model-config $cfg")
done
RUNS+=("microbench|--adapter microbench --model microbench.tla")
fail=0
for run in "${RUNS[@]}"; do
	name=${run%%|*}
	args=${run#*|}
	if [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $name "* ]]; then
		continue
	fi
	for strategy in random model; do
		dir=$(mktemp -d)
		log="$LOGDIR/$name-$strategy.log"
		# shellcheck disable=SC2086
		if "$BIN" run $args --strategy "$strategy" --tlc diff --tla2tools "$JAR" \
			--iterations "$N" --seed "$SEED" --corpus "$dir/c" --minimize=false >"$log" 2>&1; then
			out=$(cat "$log")
			agree=$(grep -o 'the engines agree: .*' <<<"$out" || true)
			echo "$name $strategy: ${agree:-no comparison reported}"
			[ -n "$agree" ] || fail=1
		else
			echo "$name $strategy: FAILED"
			grep -E 'disagree|rror' "$log" | tail -3
			if [ -d "$dir/c/tlc-diff" ]; then
				mkdir -p tlc-diff-failures
				cp "$dir"/c/tlc-diff/* tlc-diff-failures/
				echo "  saved in tlc-diff-failures/"
			fi
			fail=1
		fi
		rm -rf "$dir"
	done
done
exit $fail
