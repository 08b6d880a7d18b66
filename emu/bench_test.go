package emu

import (
	"encoding/binary"
	"os"
	"syscall"
	"testing"
)

// storeBenchRef computes store_bench.ptx's buffers with a plain Go loop:
// the same hash, the same stores, the barrier as a phase boundary.
func storeBenchRef(grid, block, rounds int) (out32, out128 []byte) {
	n := grid * block
	out32 = make([]byte, 4*n)
	out128 = make([]byte, 16*n)
	h := make([]uint32, block)
	acc := make([]uint32, block)
	sm32 := make([]uint32, block)
	sm128 := make([][4]uint32, block)
	for c := range grid {
		for t := range block {
			h[t], acc[t] = uint32(c*block+t), 0
		}
		for r := range rounds {
			for t := range block {
				x := h[t]
				x ^= x >> 16
				x *= 73244475
				x ^= x >> 16
				x += uint32(r)
				h[t] = x
				g := c*block + t
				binary.LittleEndian.PutUint32(out32[4*g:], x)
				for i := range 4 {
					binary.LittleEndian.PutUint32(out128[16*g+4*i:], x+uint32(i))
				}
				sm32[t] = x
				sm128[t] = [4]uint32{x, x + 1, x + 2, x + 3}
			}
			for t := range block {
				nb := (t + 1) & (block - 1)
				acc[t] += sm32[nb] ^ sm128[nb][3]
			}
		}
		for t := range block {
			binary.LittleEndian.PutUint32(out32[4*(c*block+t):], acc[t])
		}
	}
	return out32, out128
}

func benchSource(t testing.TB) string {
	src, err := os.ReadFile("../testdata/emu/store_bench.ptx")
	if err != nil {
		t.Fatal(err)
	}
	return string(src)
}

func TestStoreBenchMatchesGo(t *testing.T) {
	const grid, block, rounds = 6, 128, 5
	for _, seed := range []uint64{0, 7} {
		res := launch(t, benchSource(t), Config{Grid: dims(grid, 1, 1), Block: dims(block, 1, 1), Seed: seed, Jobs: 2},
			buf(4*grid*block), buf(16*grid*block), scalar(rounds))
		want32, want128 := storeBenchRef(grid, block, rounds)
		if string(res.Buffers[0].Data) != string(want32) || string(res.Buffers[1].Data) != string(want128) {
			t.Fatalf("seed %d: emulated buffers differ from the Go reference", seed)
		}
	}
}

const benchGrid, benchBlock, benchRounds = 256, 256, 8

func BenchmarkStoreKernel(b *testing.B) {
	p := compile(b, benchSource(b))
	for _, jobs := range []int{1, 2} {
		b.Run(map[int]string{1: "jobs1", 2: "jobs2"}[jobs], func(b *testing.B) {
			var insts uint64
			cpu0 := cpuSeconds()
			for b.Loop() {
				res, err := execute(p, Config{Grid: dims(benchGrid, 1, 1), Block: dims(benchBlock, 1, 1), Jobs: jobs},
					[]Arg{buf(4 * benchGrid * benchBlock), buf(16 * benchGrid * benchBlock), scalar(benchRounds)})
				if err != nil || res.Report != nil {
					b.Fatal(err, res.Report)
				}
				insts = res.Stats.ThreadInsts
			}
			b.ReportMetric(float64(insts)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mthread-inst/s")
			// Throughput per CPU-second of this process: independent of
			// other load on the machine (wall time is not).
			if cpu := cpuSeconds() - cpu0; cpu > 0 {
				b.ReportMetric(float64(insts)*float64(b.N)/cpu/1e6, "Mthread-inst/cpu-s")
			}
		})
	}
}

func BenchmarkStoreKernelGo(b *testing.B) {
	for b.Loop() {
		storeBenchRef(benchGrid, benchBlock, benchRounds)
	}
}

// TestNoAllocationPerInstruction: allocations of a launch do not grow
// with the number of instructions executed (the interpreter loop, memory
// access and barriers allocate nothing).
func TestNoAllocationPerInstruction(t *testing.T) {
	p := compile(t, benchSource(t))
	allocs := func(rounds uint64) float64 {
		return testing.AllocsPerRun(3, func() {
			res, err := execute(p, Config{Grid: dims(4, 1, 1), Block: dims(128, 1, 1)},
				[]Arg{buf(4 * 512), buf(16 * 512), scalar(rounds)})
			if err != nil || res.Report != nil {
				t.Fatal(err, res.Report)
			}
		})
	}
	few, many := allocs(1), allocs(200)
	if many > few {
		t.Errorf("a launch allocates %v times with 1 round and %v with 200 rounds", few, many)
	}
}

// cpuSeconds returns the user and system CPU time this process has used.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}
