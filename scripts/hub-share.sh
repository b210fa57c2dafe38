#!/usr/bin/env bash
# Measures what sharing through a hub buys: N executions in total on etcd
# raft guided by raft.tla, run by one worker alone (no hub) and by three
# workers of one hub (N/3 each, at once, on this machine, loopback), with
# the same settings (--tlc inproc --parallel 1, seeds SEEDS). Only the
# sharing changes. Prints, per seed, the coverage of the one worker and
# the union coverage of the three (as the hub counts it), and the
# CPU-seconds (user+sys) each took in total. MODES (default "one hub")
# says which of these run; it also takes
# "independent": three workers without a hub, N/3 each, seeds S, S+1000
# and S+2000 (the same seed would run the same inputs three times), the
# union of their corpora's coverage (scripts/corpusunion); "hub1": one
# worker of the hub, named a, running all N: the hub's own effect on a
# campaign, and one worker's figure on another random stream of the same
# seed (a worker's stream is its seed mixed with its name), since one
# stream per seed is a small sample of what one worker reaches.
#
# With INJECT, the workers run with --inject INJECT and minimize their bugs,
# and the script checks that every bug of every worker's corpus is at the
# hub, once, with its input, and says who minimized each.
#
#   scripts/hub-share.sh                    N=9000, SEEDS='1 2 3'
#   N=3000 SEEDS=1 MODELFUZZ=./modelfuzz scripts/hub-share.sh
#   N=900 SEEDS=1 INJECT=send-before-persist scripts/hub-share.sh
#   MODES=independent scripts/hub-share.sh
#   MODES=hub SEEDS='1 2 3 4 5 6 7' scripts/hub-share.sh
#
# PROFILE=DIR writes a Go CPU profile of every process run (one.S.prof,
# a.S.prof, b.S.prof, c.S.prof for seed S) to DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-9000}
SEEDS=${SEEDS:-1 2 3}
MF=${MODELFUZZ:-}
if [ -z "$MF" ]; then
	MF=$(mktemp -d)/modelfuzz
	go build -o "$MF" ./cmd/modelfuzz
fi
TMP=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$TMP"' EXIT
INJECT=${INJECT:-}
MODES=${MODES:-one hub}
UNION=$(mktemp -d)/corpusunion
go build -o "$UNION" ./scripts/corpusunion
COMMON=(run --model raft.tla --tlc inproc --parallel 1 --log-level error)
if [ -n "$INJECT" ]; then
	COMMON+=(--inject "$INJECT")
else
	COMMON+=(--minimize=false)
fi
PROFILE=${PROFILE:-}
[ -z "$PROFILE" ] || mkdir -p "$PROFILE"
prof() { [ -z "$PROFILE" ] || echo "--cpuprofile $PROFILE/$1.prof"; }
cpu() { awk '{s+=$1+$2} END {printf "%.1f", s}' "$@"; }
echo "load: $(uptime)"
for seed in $SEEDS; do
	# A seed given twice runs again from nothing, not as a continued campaign.
	rm -rf "$TMP"/*-"$seed"
	if [[ " $MODES " == *" independent "* ]]; then
		pids=()
		for k in 0 1 2; do
			/usr/bin/time -f '%U %S' -o "$TMP/i$k.time" "$MF" "${COMMON[@]}" --seed $((seed + 1000 * k)) --iterations $((N / 3)) \
				--corpus "$TMP/i$k-$seed" >/dev/null &
			pids+=($!)
		done
		wait "${pids[@]}"
		echo "seed $seed: three independent workers (seeds $seed, $((seed + 1000)), $((seed + 2000))), $((N / 3)) each: union $("$UNION" "$TMP"/i[012]-"$seed") ($(cpu "$TMP"/i[012].time) CPU-s)"
	fi
	if [[ " $MODES " == *" one "* ]]; then
		/usr/bin/time -f '%U %S' -o "$TMP/one.time" "$MF" "${COMMON[@]}" --seed "$seed" --iterations "$N" \
			--corpus "$TMP/one-$seed" $(prof "one.$seed") --json >"$TMP/one.json"
		one=$(tail -n 1 "$TMP/one.json" | python3 -c 'import json,sys; c=json.load(sys.stdin)["coverage"]; print(" ".join(f"{k} {c[k]}" for k in sorted(c)))')
		echo "seed $seed: one worker, $N executions: $one ($(cpu "$TMP/one.time") CPU-s)"
	fi
	if [[ " $MODES " == *" hub1 "* ]]; then
		"$MF" hub --dir "$TMP/hub1-$seed" --listen 127.0.0.1:0 >"$TMP/hub1.out" 2>/dev/null &
		hub=$!
		for _ in $(seq 600); do grep -q nats:// "$TMP/hub1.out" 2>/dev/null && break; sleep 0.1; done
		url=$(grep -o 'nats://[^ ]*' "$TMP/hub1.out")
		/usr/bin/time -f '%U %S' -o "$TMP/a1.time" "$MF" "${COMMON[@]}" --seed "$seed" --iterations "$N" \
			--corpus "$TMP/a1-$seed" --join "$url" --worker a --log-level warn >/dev/null 2>"$TMP/a1.err"
		kill -INT "$hub"
		wait "$hub" || true
		echo "seed $seed: one worker of a hub, $N executions: union $(grep 'union coverage' "$TMP/hub1.out" | sed 's/union coverage: //') ($(cpu "$TMP/a1.time") CPU-s)"
		cat "$TMP/a1.err"
	fi
	[[ " $MODES " == *" hub "* ]] || continue
	"$MF" hub --dir "$TMP/hub-$seed" --listen 127.0.0.1:0 >"$TMP/hub.out" 2>/dev/null &
	hub=$!
	for _ in $(seq 600); do grep -q nats:// "$TMP/hub.out" 2>/dev/null && break; sleep 0.1; done
	url=$(grep -o 'nats://[^ ]*' "$TMP/hub.out")
	pids=()
	for w in a b c; do
		/usr/bin/time -f '%U %S' -o "$TMP/$w.time" "$MF" "${COMMON[@]}" --seed "$seed" --iterations $((N / 3)) \
			--corpus "$TMP/$w-$seed" --join "$url" --worker "$w" $(prof "$w.$seed") --log-level warn >/dev/null 2>"$TMP/$w.err" &
		pids+=($!)
	done
	wait "${pids[@]}"
	if [ -n "$INJECT" ]; then
		"$MF" bugs --hub "$url" --json >"$TMP/hub-bugs.json"
		"$MF" bugs --hub "$url"
		for w in a b c; do "$MF" bugs --corpus "$TMP/$w-$seed" --json >"$TMP/$w-bugs.json" 2>/dev/null; done
		python3 - "$TMP" <<'PY'
import json, sys, collections
d = sys.argv[1]
hub = json.load(open(f"{d}/hub-bugs.json"))
sigs = collections.Counter(b["signature"] for b in hub)
assert all(n == 1 for n in sigs.values()), f"listed twice: {[s for s, n in sigs.items() if n > 1]}"
assert all(b.get("input") for b in hub), "a bug without its input"
local, minimized = set(), collections.Counter()
for w in "abc":
    for b in json.load(open(f"{d}/{w}-bugs.json")):
        local.add(b["signature"])
        if b["minimized_steps"] is not None:
            minimized[b["signature"]] += 1
twice = [s for s, n in minimized.items() if n > 1]
missing = local - set(sigs)
assert not missing, f"not at the hub: {missing}"
by = collections.Counter(b.get("minimized_by", "") for b in hub)
print(f"hub bugs: {len(hub)}, the workers' distinct signatures: {len(local)}, all at the hub once; minimized by: {dict(by)}; "
      f"minimized by more than one worker: {len(twice)}")
PY
	fi
	kill -INT "$hub"
	wait "$hub" || true
	union=$(grep 'union coverage' "$TMP/hub.out" | sed 's/union coverage: //')
	echo "seed $seed: three workers, $((N / 3)) each: union $union ($(cpu "$TMP"/[abc].time) CPU-s); $(grep workers: "$TMP/hub.out")"
	cat "$TMP"/[abc].err
done
echo "load: $(uptime)"
