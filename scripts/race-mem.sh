#!/usr/bin/env bash
# race-mem.sh: the race detector's shadow memory on every launch of the H100
# reference set (BENCHMARKS.md, "The race detector"): the shadow's bytes at
# its peak against the bytes of memory it shadowed then (`ptxkit run --race
# --stats`), and the peak resident memory of the process without and with
# --race.
#
#   scripts/race-mem.sh [PTXKIT]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-}
if [ -z "$bin" ]; then
	bin=$(mktemp -d)/ptxkit
	go build -o "$bin" ./cmd/ptxkit
fi
ref=$(cd ../shared/gpu-reference && pwd)
cd "$ref"
printf '| launch | shadowed | shadow | ratio | records | peak RSS without | with --race |\n| --- | --- | --- | --- | --- | --- | --- |\n'
tail -n +2 launches.tsv | while IFS=$'\t' read -r name ptx kernel grid block cluster shared compare args; do
	a=()
	for x in $args; do a+=(--arg "$x"); done
	if [ "$cluster" = coop ]; then c=(--cooperative); else c=(--cluster "$cluster"); fi
	run() {
		/usr/bin/time -o "$bin.t" -f "%M" "$bin" run "$ptx" --kernel "$kernel" --grid "$grid" --block "$block" "${c[@]}" \
			--shared-bytes "$shared" --dump none --timeout 0 --heartbeat 0 --stats "$@" "${a[@]}" 2>&1
	}
	run >/dev/null
	m0=$(cat "$bin.t")
	line=$(run --race | grep '^race shadow:' || true)
	m1=$(cat "$bin.t")
	echo "$line" | awk -v n="$name" -v m0="$m0" -v m1="$m1" '{
		sh += $9; sw += $3
		printf "| %s | %d KiB | %d KiB | %.2fx | %d | %d MB | %d MB |\n", n, $9 / 1024, $3 / 1024, $3 / $9, $15, m0 / 1024, m1 / 1024 }'
done
