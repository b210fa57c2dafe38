#!/usr/bin/env bash
# Measures what model guidance costs: the same system with the same
# settings, guided by the model and unguided (--strategy random without a
# model), campaigns of ITER iterations from one seed, back to back and
# alternated REPEAT times, on one core (taskset -c 0 when there is
# taskset; a sidecar inherits the core). Only the guidance changes: the
# script checks that the two campaigns' stored settings differ in the
# strategy and the model alone, and stops otherwise.
#
# Pairs (each guided campaign against its own unguided baseline):
#   raft-inproc    --model raft.tla --tlc inproc against the system raft.tla
#                  runs (etcdraft's defaults with --api rawnode: every action,
#                  a spare node, the log bootstrap)
#   raft-sidecar   the same through the model engine's sidecar
#   raft-measured  random inputs measured by the model (--strategy random
#                  --model raft.tla --tlc inproc): the engine's cost alone
#   micro-inproc   the micro-benchmark, --model microbench.tla --tlc inproc
#   micro-sidecar  the same through the sidecar
#   spec           --model etcdraft.tla (a with_tla build; each execution's
#                  trace validated) against the same settings unguided; the
#                  guided system also emits the library's trace
#
# Prints one line per campaign: executions per CPU-second (user+sys of
# modelfuzz and its sidecar, from /usr/bin/time) and per wall-second, and
# per pair the medians and their ratio, guided over unguided (and the
# sidecar over in process). CPU time is the figure to compare on a busy
# machine; wall time is what a user sees.
#
#   scripts/bench-guidance.sh                      every pair
#   ONLY='raft-inproc micro-inproc' scripts/bench-guidance.sh
#   ITER=5000 MICRO_ITER=50000 SPEC_ITER=50 SEED=7 REPEAT=3 scripts/bench-guidance.sh
#   CPUPROFILE=DIR scripts/bench-guidance.sh       a CPU profile per campaign in DIR
set -euo pipefail
cd "$(dirname "$0")/.."
ITER=${ITER:-5000}
SEED=${SEED:-7}
REPEAT=${REPEAT:-2}
SPEC_ITER=${SPEC_ITER:-50}
MICRO_ITER=${MICRO_ITER:-50000}
ONLY=${ONLY:-}
CPUPROFILE=${CPUPROFILE:-}
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
[ -x /usr/bin/time ] || { echo "bench-guidance.sh needs /usr/bin/time (GNU time)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "bench-guidance.sh needs python3 (to compare the campaigns' settings)" >&2; exit 1; }
go build -o "$work/modelfuzz" ./cmd/modelfuzz
go build -tags with_tla -o "$work/modelfuzz-tla" ./cmd/modelfuzz
one=()
command -v taskset >/dev/null && one=(taskset -c 0)

echo "# $(date -u +%FT%TZ) $(uname -n), load: $(cut -d' ' -f1-3 /proc/loadavg), seed $SEED"
printf '%-15s %-9s %6s %8s %11s %11s\n' pair campaign iter cpu_s exec/cpu_s exec/wall_s

# run PAIR NAME BIN ITER ARGS...: one campaign; appends "cpu_rate wall_rate"
# to $work/PAIR.NAME and keeps its settings in $work/PAIR.NAME.json.
run() {
	local pair=$1 name=$2 bin=$3 iter=$4
	shift 4
	local corpus="$work/c-$pair-$name" prof=()
	[ -n "$CPUPROFILE" ] && prof=(--cpuprofile "$CPUPROFILE/$pair-$name.prof")
	rm -rf "$corpus"
	/usr/bin/time -f '%U %S %e' -o "$work/time" "${one[@]}" "$work/$bin" run "$@" \
		--parallel 1 --seed "$SEED" --iterations "$iter" --corpus "$corpus" --fresh --minimize=false \
		--json --log-level error "${prof[@]}" >"$work/out" 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
	"$work/$bin" corpus export --corpus "$corpus" --out "$work/export" >/dev/null
	cp "$work/export/campaign.json" "$work/$pair.$name.json"
	rm -rf "$corpus" "$work/export"
	local user sys wall iters
	read -r user sys wall <"$work/time"
	iters=$(tail -n 1 "$work/out" | sed -n 's/.*"iterations":\([0-9]*\).*/\1/p')
	local cpu rate wrate
	cpu=$(echo "$user + $sys" | bc)
	rate=$(echo "scale=1; $iters / $cpu" | bc)
	wrate=$(echo "scale=1; $iters / $wall" | bc)
	echo "$rate $wrate" >>"$work/$pair.$name"
	printf '%-15s %-9s %6d %8.2f %11.1f %11.1f\n' "$pair" "$name" "$iters" "$cpu" "$rate" "$wrate"
}

# same PAIR IGNORE...: the guided and unguided campaigns' settings are
# equal but for the strategy, the model and the keys named.
same() {
	local pair=$1
	shift
	python3 - "$work/$pair.guided.json" "$work/$pair.unguided.json" "$@" <<'EOF' || exit 1
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
ignore = {"strategy", "model", "model_consts", "created", "tool"} | set(sys.argv[3:])
def flat(d, pre=""):
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(flat(v, pre + k + "."))
        elif (pre + k) not in ignore and k not in ignore:
            out[pre + k] = v
    return out
fa, fb = flat(a), flat(b)
diff = sorted(k for k in set(fa) | set(fb) if fa.get(k) != fb.get(k))
if diff:
    print("the guided and unguided campaigns differ in more than the guidance:", file=sys.stderr)
    for k in diff:
        print(f"  {k}: guided {fa.get(k)!r}, unguided {fb.get(k)!r}", file=sys.stderr)
    sys.exit(1)
EOF
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

# summary PAIR [BASE]: medians of the guided and unguided campaigns, ratio.
summary() {
	local pair=$1 g u gw uw
	g=$(cut -d' ' -f1 "$work/$pair.guided" | median)
	u=$(cut -d' ' -f1 "$work/$pair.unguided" | median)
	gw=$(cut -d' ' -f2 "$work/$pair.guided" | median)
	uw=$(cut -d' ' -f2 "$work/$pair.unguided" | median)
	printf '%-15s median guided %s, unguided %s exec/cpu_s: %s of unguided (wall: %s, %s: %s)\n' "$pair" "$g" "$u" \
		"$(echo "scale=2; $g / $u" | bc)" "$gw" "$uw" "$(echo "scale=2; $gw / $uw" | bc)"
}

# pair PAIR BIN ITER GUIDED-ARGS -- UNGUIDED-ARGS -- IGNORE...
pair() {
	local p=$1 bin=$2 iter=$3
	shift 3
	if [ -n "$ONLY" ] && ! [[ " $ONLY " == *" $p "* ]]; then
		return
	fi
	local guided=() unguided=() ignore=()
	while [ "$1" != -- ]; do guided+=("$1"); shift; done
	shift
	while [ "$1" != -- ]; do unguided+=("$1"); shift; done
	shift
	ignore=("$@")
	for ((i = 0; i < REPEAT; i++)); do
		run "$p" unguided "$bin" "$iter" "${unguided[@]}"
		run "$p" guided "$bin" "$iter" "${guided[@]}"
	done
	same "$p" "${ignore[@]}"
	summary "$p"
}

raft=(--adapter etcdraft --api rawnode)
pair raft-inproc modelfuzz "$ITER" --model raft.tla --tlc inproc -- "${raft[@]}" --strategy random --
pair raft-sidecar modelfuzz "$ITER" --model raft.tla -- "${raft[@]}" --strategy random --
pair raft-measured modelfuzz "$ITER" --model raft.tla --tlc inproc --strategy random -- "${raft[@]}" --strategy random --
pair micro-inproc modelfuzz "$MICRO_ITER" --model microbench.tla --tlc inproc -- --adapter microbench --strategy random --
pair micro-sidecar modelfuzz "$MICRO_ITER" --model microbench.tla -- --adapter microbench --strategy random --
# The settings --model etcdraft.tla takes by default (docs/etcdraft.md):
# PreVote, CheckQuorum and the size limit off, every action but the holds
# of storage writes; the guided system also traces itself for the spec
# (spec_trace).
pair spec modelfuzz-tla "$SPEC_ITER" --model etcdraft.tla -- --adapter etcdraft --strategy random --prevote=false \
	--checkquorum=false --max-size-per-msg 0 \
	--actions deliver,crash,restart,timeout,request,drop,duplicate,deliver-one,partition,heal,conf-change,transfer-leader,read,tick -- spec_trace

# The sidecar against the engine in process, guided campaigns alike.
if [ -f "$work/raft-sidecar.guided" ] && [ -f "$work/raft-inproc.guided" ]; then
	s=$(cut -d' ' -f1 "$work/raft-sidecar.guided" | median)
	i=$(cut -d' ' -f1 "$work/raft-inproc.guided" | median)
	echo "raft sidecar / in process (guided, exec/cpu_s): $(echo "scale=2; $s / $i" | bc)"
fi
if [ -f "$work/micro-sidecar.guided" ] && [ -f "$work/micro-inproc.guided" ]; then
	s=$(cut -d' ' -f1 "$work/micro-sidecar.guided" | median)
	i=$(cut -d' ' -f1 "$work/micro-inproc.guided" | median)
	echo "micro sidecar / in process (guided, exec/cpu_s): $(echo "scale=2; $s / $i" | bc)"
fi
echo "# load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
