#!/usr/bin/env bash
# bench-startup.sh - the two figures of start-up and validator throughput:
#
#  1. start-up: CPU time (user+sys, perf's task-clock) of `ptxkit check` on
#     a three-line module, this tree's build against an older build (by
#     default the commit before the whole-ISA instruction table, cce2c28),
#     run alternately: ROUNDS rounds of `perf stat -r RUNS` each, the
#     median round per build;
#  2. throughput: CPU time of `ptxkit check` on compiler-style modules of
#     16 and 64 MiB (internal/benchmod) against `cat FILE > /dev/null`,
#     alternately, medians of REPS runs, and the ratio.
#
# Environment: PTXKIT_OLD, a ptxkit binary to compare with (otherwise
# OLD_REV is built from git into a temporary folder); ROUNDS (21), RUNS
# (20), REPS (5), SIZES ("16 64"). Needs perf (perf stat -e task-clock).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rounds=${ROUNDS:-21}
runs=${RUNS:-20}
reps=${REPS:-5}
sizes=${SIZES-16 64}
old_rev=${OLD_REV:-cce2c28}

command -v perf >/dev/null || { echo "bench-startup.sh: perf not found" >&2; exit 1; }
cd "$root"
go build -o "$work/new" ./cmd/ptxkit
old=${PTXKIT_OLD:-}
if [ -z "$old" ]; then
	mkdir "$work/src"
	git archive "$old_rev" | tar -x -C "$work/src"
	(cd "$work/src" && go build -o "$work/old" ./cmd/ptxkit)
	old=$work/old
fi
printf '.version 8.0\n.target sm_90\n.address_size 64\n' > "$work/small.ptx"

# cpu_ms RUNS CMD...: task-clock of CMD in ms, the mean of RUNS runs.
cpu_ms() {
	local n=$1
	shift
	perf stat -r "$n" -x, -e task-clock "$@" 2>&1 >/dev/null | awk -F, '/task-clock/ { print $1 }'
}

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

echo "start-up: ptxkit check of a three-line module, CPU ms per run ($rounds rounds of $runs runs, alternating)"
: > "$work/old.ms"
: > "$work/new.ms"
for _ in $(seq "$rounds"); do
	cpu_ms "$runs" "$old" check "$work/small.ptx" >> "$work/old.ms"
	cpu_ms "$runs" "$work/new" check "$work/small.ptx" >> "$work/new.ms"
done
o=$(median < "$work/old.ms")
n=$(median < "$work/new.ms")
printf '  old (%s): median %.2f ms, fastest %.2f\n' "${PTXKIT_OLD:-$old_rev}" "$o" "$(sort -n "$work/old.ms" | head -1)"
printf '  new (this tree): median %.2f ms, fastest %.2f\n' "$n" "$(sort -n "$work/new.ms" | head -1)"
awk -v o="$o" -v n="$n" 'BEGIN { printf "  new/old: %.2f\n", n / o }'

echo "throughput: ptxkit check against cat FILE > /dev/null, CPU ms (median of $reps, alternating)"
for mb in $sizes; do
	go run ./internal/benchmod/cmd/benchmod -style compiler -mb "$mb" > "$work/m.ptx"
	"$work/new" check "$work/m.ptx" > /dev/null
	: > "$work/check.ms"
	: > "$work/cat.ms"
	for _ in $(seq "$reps"); do
		cpu_ms 1 "$work/new" check "$work/m.ptx" >> "$work/check.ms"
		cpu_ms 1 cat "$work/m.ptx" >> "$work/cat.ms"
	done
	c=$(median < "$work/check.ms")
	k=$(median < "$work/cat.ms")
	awk -v mb="$mb" -v b="$(stat -c %s "$work/m.ptx")" -v c="$c" -v k="$k" 'BEGIN {
		printf "  %3d MiB: check %8.1f ms (%6.1f MB/cpu-s), cat %6.1f ms (%7.1f MB/cpu-s): check/cat %.1fx\n",
			mb, c, b / 1e3 / c, k, b / 1e3 / k, c / k }'
done
