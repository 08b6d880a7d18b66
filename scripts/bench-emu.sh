#!/bin/sh
# Emulator speed on the store-heavy benchmark kernel
# (testdata/emu/store_bench.ptx: per thread and round a hash,
# st.global.u32, st.global.v4.u32, st.shared.u32, st.shared.v4.u32,
# bar.sync and shared loads), compared with the same work as a plain Go
# loop. Usage: scripts/bench-emu.sh [GRID] [ROUNDS]
set -eu
cd "$(dirname "$0")/.."
grid=${1:-1024}
rounds=${2:-8}
block=256
threads=$((grid * block))
bin=$(mktemp -d)/ptxkit
trap 'rm -rf "$(dirname "$bin")"' EXIT
go build -o "$bin" ./cmd/ptxkit
echo "kernel: testdata/emu/store_bench.ptx, grid $grid x block $block = $threads threads, $rounds rounds"
for jobs in 1 2; do
	for run in 1 2 3; do
		"$bin" run testdata/emu/store_bench.ptx --grid "$grid" --block "$block" \
			--arg "buf:$((threads * 4))" --arg "buf:$((threads * 16))" --arg "$rounds" \
			--jobs "$jobs" --timeout 0 --heartbeat 0 --stats --dump none | sed -n "s/^wall time: /jobs $jobs run $run: /p"
	done
done
echo "go test benchmarks (256 CTAs x 256 threads x 8 rounds; Go = the same work as a plain Go loop):"
go test ./emu/ -run '^$' -bench 'StoreKernel' -benchtime 5x -count 3 | grep -E '^Benchmark'
