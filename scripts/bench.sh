#!/usr/bin/env bash
# Runs the benchmarks recorded in docs/benchmarks.md ("The fuzz loop on the
# micro-benchmark").
set -euo pipefail
cd "$(dirname "$0")/.."
go test -run '^$' -bench 'Campaign|Execute' -benchtime 20000x -count 3 ./fuzzer/ ./adapters/microbench/
