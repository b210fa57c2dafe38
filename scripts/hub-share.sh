#!/usr/bin/env bash
# Measures what sharing through a hub buys: N executions in total on etcd
# raft guided by raft.tla, run by one worker alone (no hub) and by three
# workers of one hub (N/3 each, at once, on this machine, loopback), with
# the same settings (--tlc inproc --parallel 1, seeds SEEDS). Only the
# sharing changes. Prints, per seed, the coverage of the one worker and
# the union coverage of the three (as the hub counts it), and the
# CPU-seconds (user+sys) each took in total.
#
#   scripts/hub-share.sh                    N=9000, SEEDS='1 2 3'
#   N=3000 SEEDS=1 MODELFUZZ=./modelfuzz scripts/hub-share.sh
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
COMMON=(run --model raft.tla --tlc inproc --parallel 1 --log-level error --minimize=false)
cpu() { awk '{s+=$1+$2} END {printf "%.1f", s}' "$@"; }
echo "load: $(uptime)"
for seed in $SEEDS; do
	/usr/bin/time -f '%U %S' -o "$TMP/one.time" "$MF" "${COMMON[@]}" --seed "$seed" --iterations "$N" \
		--corpus "$TMP/one-$seed" --json >"$TMP/one.json"
	one=$(tail -n 1 "$TMP/one.json" | python3 -c 'import json,sys; c=json.load(sys.stdin)["coverage"]; print(" ".join(f"{k} {c[k]}" for k in sorted(c)))')
	"$MF" hub --dir "$TMP/hub-$seed" --listen 127.0.0.1:0 >"$TMP/hub.out" 2>/dev/null &
	hub=$!
	for _ in $(seq 100); do grep -q nats:// "$TMP/hub.out" 2>/dev/null && break; sleep 0.1; done
	url=$(grep -o 'nats://[^ ]*' "$TMP/hub.out")
	pids=()
	for w in a b c; do
		/usr/bin/time -f '%U %S' -o "$TMP/$w.time" "$MF" "${COMMON[@]}" --seed "$seed" --iterations $((N / 3)) \
			--corpus "$TMP/$w-$seed" --join "$url" --worker "$w" --log-level warn >/dev/null 2>"$TMP/$w.err" &
		pids+=($!)
	done
	wait "${pids[@]}"
	kill -INT "$hub"
	wait "$hub" || true
	union=$(grep 'union coverage' "$TMP/hub.out" | sed 's/union coverage: //')
	echo "seed $seed: one worker, $N executions: $one ($(cpu "$TMP/one.time") CPU-s)"
	echo "seed $seed: three workers, $((N / 3)) each: union $union ($(cpu "$TMP"/[abc].time) CPU-s); $(grep workers: "$TMP/hub.out")"
	cat "$TMP"/[abc].err
done
echo "load: $(uptime)"
