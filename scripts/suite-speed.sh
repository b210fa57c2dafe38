#!/usr/bin/env bash
# Times `modelfuzz tlc check` (2 workers) on every case of the conformance
# suite (../shared/tla-examples) against TLC's recorded runtime in
# cases.tsv, with the maximum resident memory; with TLC_JAR set to a
# tla2tools.jar (and TLA_LIB to a folder holding the modules TLC needs
# beyond its own, such as TLAPS.tla), TLC checks each case right after
# ours on the same machine. Prints one line per case:
#   case, distinct states, our seconds, CPU seconds (user + system), MB,
#   TLC's recorded seconds, TLC's seconds and CPU seconds here, and "over"
#   when ours is over the recorded runtime. On a loaded machine compare
#   CPU seconds, or ours with TLC's here.
#   scripts/suite-speed.sh [FILTER]
set -uo pipefail
cd "$(dirname "$0")/.."
suite=../shared/tla-examples
[ -f "$suite/cases.tsv" ] || { echo "conformance suite not found at $suite; skipping"; exit 0; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
go build -o "$work/modelfuzz" ./cmd/modelfuzz || exit 1
filter="${1:-}"
printf '%-44s %9s %8s %8s %6s %8s %8s %8s %s\n' CASE DISTINCT SECONDS CPU-S MB RECORDED TLC-S TLC-CPU ""
while IFS=$'\t' read -r dir module cfg distinct total depth features notes runtime; do
	[ "$dir" = spec_dir ] && continue
	case "$module" in *"$filter"*) ;; *) continue ;; esac
	name="$(basename "$module" .tla)/$(basename "$cfg" .cfg)"
	IFS=: read -r h m s <<<"$runtime"
	recorded=$((10#$h * 3600 + 10#$m * 60 + 10#$s))
	/usr/bin/time -f '%e %U %S %M' -o "$work/time" "$work/modelfuzz" tlc check --workers 2 \
		--config "$suite/$cfg" "$suite/$module" >"$work/out" 2>&1
	read -r wall user sys rss < <(tail -1 "$work/time")
	d=$(grep -Eo '[0-9]+ distinct states found' "$work/out" | tail -1 | grep -Eo '^[0-9]+')
	tlc=- tlccpu=-
	if [ -n "${TLC_JAR:-}" ]; then
		opts=()
		[ -n "${TLA_LIB:-}" ] && opts+=("-DTLA-Library=$TLA_LIB")
		case "$notes" in *cdot=true*) opts+=(-Dtlc2.tool.impl.Tool.cdot=true) ;; esac
		(cd "$suite/$(dirname "$module")" && /usr/bin/time -f '%e %U %S' -o "$work/tlctime" java -XX:+UseParallelGC \
			"${opts[@]}" -cp "$TLC_JAR" tlc2.TLC -workers 2 -metadir "$work/tlcstates" \
			-config "$(basename "$cfg")" "$(basename "$module")" >"$work/tlcout" 2>&1)
		read -r tlc tu ts < <(tail -1 "$work/tlctime")
		tlccpu=$(echo "$tu + $ts" | bc)
		rm -rf "$work/tlcstates"
	fi
	over=""
	(($(echo "$wall > $recorded" | bc))) && over=over
	printf '%-44s %9s %8.1f %8.1f %6d %8d %8s %8s %s\n' "$name" "${d:--}" "$wall" "$(echo "$user + $sys" | bc)" \
		$((rss / 1024)) "$recorded" "$tlc" "$tlccpu" "$over"
done <"$suite/cases.tsv"
