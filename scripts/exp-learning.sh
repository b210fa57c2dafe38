#!/usr/bin/env bash
# The learning strategies on etcd raft (chapter 4 of the ModelFuzz
# thesis): distinct states over EPISODES episodes of a horizon of 25 steps,
# per strategy and seed, and how many episodes pass each waypoint sequence
# of tests/etcdraft/raft_waypoints.tla (waypointrl against the walk).
# Usage: scripts/exp-learning.sh [SEEDS] [EPISODES] [WP_EPISODES] [OUT]
#   defaults: 5 seeds, 10000 episodes (coverage), 10000 episodes (waypoints),
#   /tmp/exp-learning. Campaigns run one after the other, one episode at a
#   time (learning strategies always do). CPU seconds are user+sys.
set -euo pipefail
seeds=${1:-5}
episodes=${2:-10000}
wpepisodes=${3:-10000}
out=${4:-/tmp/exp-learning}
bin=$(mktemp -d)/modelfuzz
go build -tags with_tla -o "$bin" ./cmd/modelfuzz
mkdir -p "$out"
wp=tests/etcdraft/raft_waypoints.tla
common=(--adapter etcdraft --model raft.tla --tlc inproc --steps 25 --json)
run() { # name args...
	local name=$1
	shift
	[ -s "$out/$name.json" ] && return
	/usr/bin/time -f %U+%S -o "$out/$name.cpu" "$bin" run "${common[@]}" --corpus "$out/$name.corpus" "$@" 2>/dev/null | tail -1 >"$out/$name.json"
	rm -rf "$out/$name.corpus"
}
for s in walk bonusmaxrl negrl; do
	for seed in $(seq 1 "$seeds"); do
		run "cov-$s-$seed" --strategy "$s" --seed "$seed" --iterations "$episodes"
	done
done
for seq in TwoRestarts RestartThenCommit CommitThenNewTerm RestartLeaderBehind; do
	for s in walk waypointrl; do
		for seed in $(seq 1 "$seeds"); do
			run "wp-$seq-$s-$seed" --strategy "$s" --seed "$seed" --iterations "$wpepisodes" --waypoints "$wp:$seq"
		done
	done
done
python3 - "$out" "$seeds" "$episodes" "$wpepisodes" <<'PY'
import json, statistics, sys, os
out, seeds, episodes, wpep = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
def load(name):
    j = json.load(open(f"{out}/{name}.json"))
    q = {x["name"]: x["value"] for x in j.get("online", [])}
    cpu = sum(float(x) for x in open(f"{out}/{name}.cpu").read().strip().split("\n")[-1].split("+"))
    return j["coverage"], q, cpu
print(f"coverage after {episodes} episodes of 25 steps, {seeds} seeds: median [min..max]")
print(f"{'strategy':<12} {'model states (raft.tla VIEW)':>30} {'system states':>24} {'CPU s/campaign':>15}")
for s in ["walk", "bonusmaxrl", "negrl"]:
    m, st, cpu = [], [], []
    for seed in range(1, seeds + 1):
        c, q, t = load(f"cov-{s}-{seed}")
        m.append(c.get("model", 0)); st.append(q.get("system states", 0)); cpu.append(t)
    f = lambda v: f"{statistics.median(v):.0f} [{min(v):.0f}..{max(v):.0f}]"
    print(f"{s:<12} {f(m):>30} {f(st):>24} {statistics.median(cpu):>15.1f}")
print()
print(f"episodes passing every waypoint of a sequence, of {wpep}, {seeds} seeds: median [min..max]")
for seq in ["TwoRestarts", "RestartThenCommit", "CommitThenNewTerm", "RestartLeaderBehind"]:
    row = []
    for s in ["walk", "waypointrl"]:
        v = [load(f"wp-{seq}-{s}-{seed}")[1].get("episodes passing all waypoints", 0) for seed in range(1, seeds + 1)]
        row.append(f"{s} {statistics.median(v):.0f} [{min(v):.0f}..{max(v):.0f}]")
    print(f"{seq:<22} " + "   ".join(row))
PY
