#!/usr/bin/env bash
# Minimization on etcd raft with a seeded bug: for each seed, a short
# model-guided campaign finds bugs, minimizes them in the background, and
# every bug's original and minimized lengths are printed, with the
# executions the minimization took, and whether its replay still shows the
# same signature. Usage: scripts/minimize-raft.sh [SEEDS] [ITERATIONS] [INJECT]
set -euo pipefail
seeds=${1:-5}
iters=${2:-300}
inject=${3:-send-before-persist}
bin=$(mktemp -d)/modelfuzz
go build -o "$bin" ./cmd/modelfuzz
printf "%-5s %-4s %-10s %8s %9s %6s %s\n" seed bug kind original minimized tries replay
for seed in $(seq 1 "$seeds"); do
	dir=$(mktemp -d)/c
	"$bin" run --model raft.tla --inject "$inject" --iterations "$iters" --seed "$seed" --tlc inproc \
		--corpus "$dir" --json --log-level error >/dev/null
	"$bin" bugs --corpus "$dir" --json | python3 -c '
import json, subprocess, sys
bin, dir, seed = sys.argv[1], sys.argv[2], sys.argv[3]
for b in json.load(sys.stdin):
    out = subprocess.run([bin, "replay", "--corpus", dir, b["id"]], capture_output=True, text=True).stdout
    same = "same" if ("signature: " + b["signature"] + "\n") in out else "DIFFERENT"
    tries = json.loads(subprocess.run([bin, "corpus", "show", "--corpus", dir, b["id"]], capture_output=True, text=True).stdout).get("minimize_tries", 0)
    print("%-5s %-4s %-10s %8d %9s %6d %s" % (seed, b["id"], b["kind"], b["original_steps"], b["minimized_steps"], tries, same))
' "$bin" "$dir" "$seed"
done
