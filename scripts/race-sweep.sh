#!/usr/bin/env bash
# race-sweep.sh: every launch of the H100 reference set under --race, once
# per schedule given as SEED:ASYNC (default: 1:eager 2:delayed 7:random
# 13:random); prints each report and "clean" when there is none. The
# reference kernels are race-free: any report is a false alarm
# (docs/race.md, "Tests").
#
#   scripts/race-sweep.sh [PTXKIT [SEED:ASYNC...]]
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${1:-}
if [ -z "$bin" ]; then
	bin=$(mktemp -d)/ptxkit
	go build -o "$bin" ./cmd/ptxkit || exit 2
fi
shift || true
scheds=("$@")
[ ${#scheds[@]} -gt 0 ] || scheds=(1:eager 2:delayed 7:random 13:random)
cd ../shared/gpu-reference || exit 2
bad=0
while IFS=$'\t' read -r name ptx kernel grid block cluster shared compare args; do
	a=()
	for x in $args; do a+=(--arg "$x"); done
	if [ "$cluster" = coop ]; then c=(--cooperative); else c=(--cluster "$cluster"); fi
	for s in "${scheds[@]}"; do
		if ! out=$("$bin" run "$ptx" --kernel "$kernel" --grid "$grid" --block "$block" "${c[@]}" --shared-bytes "$shared" \
			--dump none --timeout 0 --heartbeat 0 --race --seed "${s%%:*}" --async "${s#*:}" "${a[@]}" 2>&1); then
			echo "$name --seed ${s%%:*} --async ${s#*:}: $(echo "$out" | grep -m2 sanitizer)"
			bad=1
		fi
	done
done < <(tail -n +2 launches.tsv)
[ $bad = 0 ] && echo clean
exit $bad
