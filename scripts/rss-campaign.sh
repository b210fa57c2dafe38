#!/usr/bin/env bash
# Runs one unattended campaign and samples the resident memory of modelfuzz
# and of its model sidecar every 10 s; prints the peak of each and of their
# sum. Usage: scripts/rss-campaign.sh DURATION [modelfuzz run flags...]
# e.g. scripts/rss-campaign.sh 1h --model raft.tla
set -euo pipefail
dur=${1:?usage: scripts/rss-campaign.sh DURATION [run flags...]}
shift
bin=${MODELFUZZ:-}
if [ -z "$bin" ]; then
	bin=$(mktemp -d)/modelfuzz
	go build -o "$bin" ./cmd/modelfuzz
fi
corpus=${CORPUS:-$(mktemp -d)/corpus}
log=$(mktemp)
"$bin" run --duration "$dur" --corpus "$corpus" --json "$@" >"$log.out" 2>"$log" &
pid=$!
rss() { awk '/^VmRSS/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }
anon() { awk '/^RssAnon/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }
peak_main=0 peak_side=0 peak_sum=0
echo "time_s rss_modelfuzz_mib anon_modelfuzz_mib rss_sidecar_mib" >"$log.samples"
start=$(date +%s)
while kill -0 "$pid" 2>/dev/null; do
	m=$(rss "$pid")
	s=0
	for c in $(pgrep -P "$pid" || true); do s=$((s + $(rss "$c"))); done
	[ "$m" -gt "$peak_main" ] && peak_main=$m
	[ "$s" -gt "$peak_side" ] && peak_side=$s
	[ $((m + s)) -gt "$peak_sum" ] && peak_sum=$((m + s))
	echo "$(($(date +%s) - start)) $((m / 1024)) $(($(anon "$pid") / 1024)) $((s / 1024))" >>"$log.samples"
	sleep 10
done
wait "$pid" || true
tail -1 "$log.out"
echo "samples: $log.samples"
echo "peak RSS: modelfuzz $((peak_main / 1024)) MiB, sidecar $((peak_side / 1024)) MiB, together $((peak_sum / 1024)) MiB"
