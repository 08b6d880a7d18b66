#!/usr/bin/env bash
# bench-check-cat.sh - `ptxkit check` throughput against `cat FILE > /dev/null`
# on large modules, wall and CPU time, this tree's build beside older builds.
#
# For each size in SIZES (MiB) and each module style in STYLES it writes a
# module (internal/benchmod: "compiler", generated compiler-style kernels;
# "replicate", copies of the functions of real nvcc output, FROM), reads it
# once (page cache), then runs cat, this tree's ptxkit and every binary in
# OLD alternately, REPS times each, and prints per command the median wall
# and CPU (user+sys) seconds and the ratios check/cat of both.
#
# Environment: SIZES ("16 32 64"), STYLES ("compiler replicate"), REPS (5),
# OLD (space-separated ptxkit binaries to compare with, e.g.
# "/work/base/ptxkit-e594a47"), FROM (testdata/ptx/nvcc/ops_sm_90a.ptx).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sizes=${SIZES-16 32 64}
styles=${STYLES-compiler replicate}
reps=${REPS:-5}
old=${OLD:-}
from=${FROM:-testdata/ptx/nvcc/ops_sm_90a.ptx}

cd "$root"
go build -o "$work/ptxkit" ./cmd/ptxkit
go build -o "$work/benchmod" ./internal/benchmod/cmd/benchmod

# measure NAME CMD...: appends "wall cpu" of one run to $work/NAME.t.
measure() {
	local name=$1
	shift
	local TIMEFORMAT='%R %U %S'
	{ time "$@" >/dev/null 2>"$work/stderr"; } 2>"$work/time" || {
		echo "command failed: $*" >&2
		cat "$work/stderr" >&2
		exit 1
	}
	awk '{ printf "%.4f %.4f\n", $1, $2 + $3 }' "$work/time" >> "$work/$name.t"
}

# median FIELD FILE
median() { awk -v f="$1" '{ print $f }' "$2" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

echo "ptxkit check against cat FILE > /dev/null: medians of $reps runs, alternating; wall and CPU (user+sys) seconds"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
for style in $styles; do
	for mb in $sizes; do
		"$work/benchmod" -style "$style" -mb "$mb" -from "$from" > "$work/m.ptx"
		bytes=$(stat -c %s "$work/m.ptx")
		cat "$work/m.ptx" > /dev/null
		names="cat new"
		rm -f "$work"/*.t
		i=0
		for o in $old; do
			i=$((i + 1))
			names="$names old$i"
			"$o" check "$work/m.ptx" > /dev/null 2>&1 || true
		done
		"$work/ptxkit" check "$work/m.ptx" > /dev/null 2>&1 || { echo "the module does not check cleanly" >&2; exit 1; }
		for _ in $(seq "$reps"); do
			measure cat cat "$work/m.ptx"
			measure new "$work/ptxkit" check "$work/m.ptx"
			i=0
			for o in $old; do
				i=$((i + 1))
				measure "old$i" "$o" check "$work/m.ptx"
			done
		done
		cw=$(median 1 "$work/cat.t")
		cc=$(median 2 "$work/cat.t")
		printf '%s %d MiB (%d bytes): cat wall %.4f s, cpu %.4f s\n' "$style" "$mb" "$bytes" "$cw" "$cc"
		i=0
		for n in $names; do
			[ "$n" = cat ] && continue
			label=$n
			if [ "$n" != new ]; then
				i=$((i + 1))
				label=$(echo $old | cut -d' ' -f$i)
			fi
			w=$(median 1 "$work/$n.t")
			c=$(median 2 "$work/$n.t")
			awk -v l="$label" -v w="$w" -v c="$c" -v cw="$cw" -v cc="$cc" -v b="$bytes" 'BEGIN {
				printf "  %-32s wall %7.3f s (%6.1f MB/s) cpu %7.3f s (%6.1f MB/cpu-s)   check/cat: wall %6.1fx cpu %7.1fx\n",
					l, w, b / 1e6 / w, c, b / 1e6 / c, w / cw, (cc > 0 ? c / cc : 0) }'
		done
	done
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
