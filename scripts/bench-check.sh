#!/usr/bin/env bash
# bench-check.sh [MB] - time `ptxkit check` and NVIDIA `ptxas -arch=sm_90`
# side by side on one large many-kernel module (default 32 MB).
#
# The module is the check package's benchmark module: copies of a kernel
# with index arithmetic, loads and every common store form; ptxas accepts
# it (TestBenchModuleIsValid). ptxas is found in $PTXKIT_CUDA_BIN or
# ~/.cache/cuda-oracle/12.5/bin; without it only ptxkit is timed.
# Prints wall and CPU seconds (ptxkit: medians of nine runs, and all nine), throughput
# per wall second and per CPU second (per core), and the ratio of ptxas's
# time to ptxkit's. ptxkit is built as `go build` builds it, with the
# profile cmd/ptxkit/default.pgo.
set -euo pipefail

mb=${1:-32}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ptxas="${PTXKIT_CUDA_BIN:-$HOME/.cache/cuda-oracle/12.5/bin}/ptxas"

cd "$root"
go build -o "$work/ptxkit" ./cmd/ptxkit
PTXKIT_BENCH_OUT="$work/bench.ptx" PTXKIT_BENCH_MB="$mb" \
	go test ./check -run '^TestWriteBenchModule$' -count=1 >/dev/null
bytes=$(stat -c %s "$work/bench.ptx")
kernels=$(grep -c '^.visible .entry' "$work/bench.ptx")

# measure CMD...: prints "wall user+sys" in seconds for one run.
measure() {
	local TIMEFORMAT='%R %U %S'
	{ time "$@" >/dev/null 2>"$work/stderr"; } 2>"$work/time" || {
		echo "command failed: $*" >&2
		cat "$work/stderr" >&2
		exit 1
	}
	awk '{printf "%.3f %.3f\n", $1, $2 + $3}' "$work/time"
}

# one untimed run first (the module was just written; let the page cache
# and the machine settle), then medians of nine runs: wall time and CPU
# time (user+sys) separately, of nine runs
"$work/ptxkit" check "$work/bench.ptx" >/dev/null 2>&1 || true
sleep 2
runs=()
for _ in 1 2 3 4 5 6 7 8 9; do runs+=("$(measure "$work/ptxkit" check "$work/bench.ptx")"); done
kwall=$(printf '%s\n' "${runs[@]}" | awk '{print $1}' | sort -n | sed -n 5p)
kcpu=$(printf '%s\n' "${runs[@]}" | awk '{print $2}' | sort -n | sed -n 5p)
kcpus=$(printf '%s\n' "${runs[@]}" | awk '{print $2}' | sort -n | tr '\n' ' ')

printf 'module: %d bytes, %d kernels\n' "$bytes" "$kernels"
awk -v b="$bytes" -v w="$kwall" -v c="$kcpu" 'BEGIN {
	printf "ptxkit check:      %8.3f s wall %8.3f s cpu  %8.1f MB/s  %8.1f MB/cpu-s\n", w, c, b/1e6/w, b/1e6/c }'
echo "ptxkit CPU seconds of the nine runs: $kcpus"
awk -v b="$bytes" -v f="${kcpus%% *}" 'BEGIN { printf "ptxkit fastest run: %.3f s cpu  %8.1f MB/cpu-s (what the code costs when nothing else on the host slows it)\n", f, b/1e6/f }'

if [ -x "$ptxas" ]; then
	read -r pwall pcpu < <(measure "$ptxas" -arch=sm_90 "$work/bench.ptx" -o "$work/bench.cubin")
	awk -v b="$bytes" -v w="$pwall" -v c="$pcpu" -v kw="$kwall" -v kc="$kcpu" 'BEGIN {
		printf "ptxas -arch=sm_90: %8.3f s wall %8.3f s cpu  %8.3f MB/s  %8.3f MB/cpu-s\n", w, c, b/1e6/w, b/1e6/c
		printf "ptxkit is %.0fx faster (wall), %.0fx (cpu)\n", w/kw, c/kc }'
else
	echo "ptxas not found at $ptxas: skipped"
fi
