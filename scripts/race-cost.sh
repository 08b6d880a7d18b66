#!/usr/bin/env bash
# race-cost.sh: the CPU time (user + sys) and peak resident memory of every
# launch of the H100 reference set, run by `ptxkit run` without and with
# --race (BENCHMARKS.md, "The race detector"). Each launch runs ROUNDS times
# (default 2) each way and the smallest CPU time of each is kept, which
# tolerates a loaded host better than wall-clock time.
#
#   scripts/race-cost.sh [ROUNDS]
#
# PTXKIT=path/to/ptxkit measures that build instead of this tree's.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-2}
bin=$(mktemp -d)/ptxkit
if [ -n "${PTXKIT:-}" ]; then
	cp "$PTXKIT" "$bin"
else
	go build -o "$bin" ./cmd/ptxkit
fi
ref=$(cd ../shared/gpu-reference && pwd)
cd "$ref"
printf '| launch | CPU without | CPU with --race | ratio | peak RSS without | with |\n| --- | --- | --- | --- | --- | --- |\n'
tail -n +2 launches.tsv | while IFS=$'\t' read -r name ptx kernel grid block cluster shared compare args; do
	a=()
	for x in $args; do a+=(--arg "$x"); done
	if [ "$cluster" = coop ]; then c=(--cooperative); else c=(--cluster "$cluster"); fi
	best() {
		local b="" m=""
		for _ in $(seq "$rounds"); do
			/usr/bin/time -o "$bin.t" -f "%U %S %M" "$bin" run "$ptx" --kernel "$kernel" --grid "$grid" --block "$block" "${c[@]}" \
				--shared-bytes "$shared" --dump none --timeout 0 --heartbeat 0 "$@" "${a[@]}" >/dev/null 2>&1
			read -r u s rss <"$bin.t"
			t=$(echo "$u + $s" | bc)
			if [ -z "$b" ] || [ "$(echo "$t < $b" | bc)" = 1 ]; then b=$t; m=$rss; fi
		done
		echo "$b $m"
	}
	read -r t0 m0 < <(best)
	read -r t1 m1 < <(best --race)
	awk -v n="$name" -v t0="$t0" -v t1="$t1" -v m0="$m0" -v m1="$m1" 'BEGIN {
		r = (t0 > 0) ? sprintf("%.1fx", t1 / t0) : "-"
		printf "| %s | %.2f s | %.2f s | %s | %d MB | %d MB |\n", n, t0, t1, r, m0 / 1024, m1 / 1024 }'
done
