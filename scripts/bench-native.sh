#!/bin/sh
# The store-heavy kernel (testdata/emu/store_bench.ptx) three ways in one
# run: as a native C loop (scripts/store_bench.c, gcc -O2), under
# `ptxkit run` of a previous build, and under `ptxkit run` of this tree.
# Runs alternate; each is measured with `perf stat -e task-clock,page-faults`
# (CPU time of the whole process: user + system), and the script prints
# every run, the medians and the ratios to the C loop. Before timing it
# checks that the C loop writes exactly the bytes both builds write with
# --out, so the three do the same work.
#
# Usage: scripts/bench-native.sh [PREVIOUS_PTXKIT] [GRID] [ROUNDS] [RUNS] [JOBS]
#   PREVIOUS_PTXKIT  a ptxkit binary to compare with (default: none, only
#                    this tree and the C loop)
#   GRID             CTAs of 256 threads (default 1024: 262,144 threads)
#   ROUNDS           rounds per thread (default 8)
#   RUNS             timed runs of each (default 5)
#   JOBS             --jobs of the emulator (default 1)
set -eu
cd "$(dirname "$0")/.."
prev=${1:-}
grid=${2:-1024}
rounds=${3:-8}
runs=${4:-5}
jobs=${5:-1}
block=256
threads=$((grid * block))
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v perf >/dev/null || { echo "bench-native: needs perf (perf stat)" >&2; exit 1; }
go build -o "$tmp/ptxkit" ./cmd/ptxkit
gcc -O2 -o "$tmp/store_bench" scripts/store_bench.c

# emu BIN: run the kernel under ptxkit binary BIN, writing $tmp/out.
emu() {
	"$1" run testdata/emu/store_bench.ptx --grid "$grid" --block "$block" \
		--arg "buf:$((threads * 4))" --arg "buf:$((threads * 16))" --arg "$rounds" \
		--jobs "$jobs" --timeout 0 --heartbeat 0 --dump none --out "$tmp/out" >/dev/null
}

# measure NAME CMD...: one run; appends "ms faults" to $tmp/NAME.
measure() {
	name=$1
	shift
	rm -rf "$tmp/out" && mkdir "$tmp/out"
	perf stat -x, -e task-clock,page-faults -o "$tmp/stat" "$@" >/dev/null
	awk -F, '$3 ~ /^task-clock/ {ms = $1} $3 ~ /^page-faults/ {pf = $1} END {printf "%.1f %d\n", ms, pf}' "$tmp/stat" >>"$tmp/$name"
}

# check NAME CMD...: the command's --out bytes equal the C loop's.
check() {
	name=$1
	shift
	rm -rf "$tmp/out" && mkdir "$tmp/out"
	"$@"
	for f in arg0.bin arg1.bin; do
		if ! cmp -s "$tmp/out/$f" "$tmp/c/$f"; then
			echo "bench-native: $name wrote a different $f than the C loop" >&2
			exit 1
		fi
	done
	echo "$name: arg0.bin and arg1.bin equal the C loop's ($((threads * 4)) and $((threads * 16)) bytes)"
}

mkdir "$tmp/c"
"$tmp/store_bench" "$grid" "$block" "$rounds" "$tmp/c"
names="native this"
check this emu "$tmp/ptxkit"
if [ -n "$prev" ]; then
	names="native previous this"
	check previous emu "$prev"
fi
insts=$("$tmp/ptxkit" run testdata/emu/store_bench.ptx --grid "$grid" --block "$block" \
	--arg "buf:$((threads * 4))" --arg "buf:$((threads * 16))" --arg "$rounds" \
	--jobs "$jobs" --timeout 0 --heartbeat 0 --dump none --stats | sed -n 's/.* warp-level, \([0-9]*\) thread-level/\1/p')

echo "kernel: testdata/emu/store_bench.ptx, $grid CTAs x $block threads = $threads threads, $rounds rounds, --jobs $jobs; $insts thread-instructions"
for i in $(seq "$runs"); do
	measure native "$tmp/store_bench" "$grid" "$block" "$rounds" "$tmp/out"
	[ -z "$prev" ] || measure previous "$prev" run testdata/emu/store_bench.ptx --grid "$grid" --block "$block" \
		--arg "buf:$((threads * 4))" --arg "buf:$((threads * 16))" --arg "$rounds" \
		--jobs "$jobs" --timeout 0 --heartbeat 0 --dump none --out "$tmp/out"
	measure this "$tmp/ptxkit" run testdata/emu/store_bench.ptx --grid "$grid" --block "$block" \
		--arg "buf:$((threads * 4))" --arg "buf:$((threads * 16))" --arg "$rounds" \
		--jobs "$jobs" --timeout 0 --heartbeat 0 --dump none --out "$tmp/out"
done

median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
cmed=$(cut -d' ' -f1 "$tmp/native" | median)
printf '%-9s %-40s %12s %14s %10s %14s\n' build "CPU ms per run" "median ms" "median faults" "x C loop" "ns/thread-inst"
for n in $names; do
	ms=$(cut -d' ' -f1 "$tmp/$n" | median)
	pf=$(cut -d' ' -f2 "$tmp/$n" | median)
	all=$(cut -d' ' -f1 "$tmp/$n" | tr '\n' ' ')
	printf '%-9s %-40s %12s %14s %10s %14s\n' "$n" "$all" "$ms" "$pf" \
		"$(awk -v a="$ms" -v b="$cmed" 'BEGIN {printf "%.2f", a / b}')" \
		"$(awk -v a="$ms" -v n="$insts" 'BEGIN {printf "%.2f", a * 1e6 / n}')"
done
