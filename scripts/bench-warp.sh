#!/bin/sh
# CPU time of the emulator on four kernels, a previous build against this
# tree's, as medians of RUNS runs taken alternately in one invocation:
# store_bench.ptx (1024 CTAs x 256 threads x 8 rounds), and from the GPU
# reference set's basics.ptx a shuffle reduction (reduce_shfl), a block scan
# (scan_block) and a tiled matrix product (mm_tiled), each on a grid 16 to
# 64 times the reference launch's. CPU time is user+sys of the process, so
# other load on the machine changes it less than wall time.
# Usage: scripts/bench-warp.sh [BASE_BINARY] [RUNS]
#   BASE_BINARY defaults to $PTXKIT_BASE; RUNS to 3.
set -eu
cd "$(dirname "$0")/.."
base=${1:-${PTXKIT_BASE:-}}
runs=${2:-3}
ref=${PTXKIT_GPU_REFERENCE:-../shared/gpu-reference}
if [ -z "$base" ] || [ ! -x "$base" ]; then
	echo "usage: scripts/bench-warp.sh BASE_BINARY [RUNS] (or set PTXKIT_BASE)" >&2
	exit 2
fi
if [ ! -f "$ref/ptx/basics.ptx" ]; then
	echo "the GPU reference set is not at $ref (set PTXKIT_GPU_REFERENCE)" >&2
	exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/ptxkit" ./cmd/ptxkit
common="--jobs 1 --timeout 0 --heartbeat 0 --max-steps 0 --max-launch-steps 0 --dump none"
b=$ref/ptx/basics.ptx
# name|arguments of ptxkit run
cat >"$tmp/launches" <<EOF
store_bench|testdata/emu/store_bench.ptx --grid 1024 --block 256 --arg buf:1048576 --arg buf:4194304 --arg 8
reduce_shfl|$b --kernel reduce_shfl --grid 4096 --block 256 --arg buf:16777216:fill=3 --arg buf:16384 --arg 4194304
scan_block|$b --kernel scan_block --grid 8192 --block 256 --arg buf:8388608:fill=3 --arg buf:32768
mm_tiled|$b --kernel mm_tiled --grid 8,8 --block 32,32 --arg buf:262144 --arg buf:262144:fill=63 --arg buf:262144:fill=63 --arg 256
EOF
# cpu BINARY ARGS...: user+sys seconds of one run
cpu() {
	bin=$1
	shift
	# shellcheck disable=SC2086
	/usr/bin/time -f '%U %S' -o "$tmp/time" "$bin" run "$@" $common >/dev/null
	awk '{printf "%.2f\n", $1 + $2}' "$tmp/time"
}
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
printf '%-12s %10s %10s %7s\n' kernel "base cpu-s" "this cpu-s" ratio
while IFS='|' read -r name args; do
	: >"$tmp/a"
	: >"$tmp/b"
	i=0
	while [ "$i" -lt "$runs" ]; do
		# shellcheck disable=SC2086
		cpu "$base" $args >>"$tmp/a"
		# shellcheck disable=SC2086
		cpu "$tmp/ptxkit" $args >>"$tmp/b"
		i=$((i + 1))
	done
	a=$(median <"$tmp/a")
	c=$(median <"$tmp/b")
	printf '%-12s %10s %10s %6.2fx\n' "$name" "$a" "$c" "$(echo "$a $c" | awk '{print ($2 > 0) ? $1 / $2 : 0}')"
done <"$tmp/launches"
