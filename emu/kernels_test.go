package emu

import (
	"encoding/binary"
	"math"
	"os"
	"testing"
)

func readKernel(t testing.TB, name string) string {
	t.Helper()
	src, err := os.ReadFile("../testdata/emu/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(src)
}

// TestLLCStores runs LLVM-generated PTX and checks all seven buffers.
func TestLLCStores(t *testing.T) {
	const grid, block, n = 3, 100, 250
	total := grid * block
	args := []Arg{buf(4 * total), buf(16 * total), buf(total), buf(2 * total), buf(8 * total), buf(4 * total), buf(8 * total), scalar(n)}
	for _, seed := range []uint64{0, 3} {
		res := launch(t, readKernel(t, "llc_stores.ptx"), Config{Grid: dims(grid, 1, 1), Block: dims(block, 1, 1), Seed: seed, Jobs: 2}, args...)
		mix := func(a, b uint32) uint32 {
			x := a*2654435761 ^ b
			return x ^ x>>13
		}
		b := func(i int) []byte { return res.Buffers[i].Data }
		for g := range total {
			cta, tid := g/block, g%block
			h := mix(uint32(g), n)
			hn := mix(uint32(cta*block+(tid+1)%block), n)
			if g >= n {
				if binary.LittleEndian.Uint32(b(0)[4*g:]) != 0 || b(2)[g] != 0 {
					t.Fatalf("thread %d past n stored", g)
				}
				continue
			}
			want4 := []uint32{h, hn, h ^ hn, uint32(g)}
			got4 := u32s(b(1)[16*g : 16*g+16])
			switch {
			case binary.LittleEndian.Uint32(b(0)[4*g:]) != hn:
				t.Fatalf("seed %d thread %d: i32 store", seed, g)
			case got4[0] != want4[0] || got4[1] != want4[1] || got4[2] != want4[2] || got4[3] != want4[3]:
				t.Fatalf("thread %d: v4 store %v, want %v", g, got4, want4)
			case b(2)[g] != byte(h):
				t.Fatalf("thread %d: i8 store", g)
			case binary.LittleEndian.Uint16(b(3)[2*g:]) != uint16(h):
				t.Fatalf("thread %d: i16 store", g)
			case binary.LittleEndian.Uint64(b(4)[8*g:]) != uint64(h)*4294967311:
				t.Fatalf("thread %d: i64 store", g)
			case math.Float32frombits(binary.LittleEndian.Uint32(b(5)[4*g:])) != float32(h):
				t.Fatalf("thread %d: float store", g)
			case math.Float64frombits(binary.LittleEndian.Uint64(b(6)[8*g:])) != float64(int32(h-hn)):
				t.Fatalf("thread %d: double store", g)
			}
		}
	}
}

// TestNVCCStoreRounds runs the nvcc-shaped kernel (global and shared
// scalar and vector stores with bar.sync between rounds).
func TestNVCCStoreRounds(t *testing.T) {
	const grid, block, rounds = 4, 128, 5
	for _, seed := range []uint64{0, 11} {
		res := launch(t, readKernel(t, "nvcc_store_rounds.ptx"), Config{Grid: dims(grid, 1, 1), Block: dims(block, 1, 1), Seed: seed},
			buf(4*grid*block), buf(16*grid*block), scalar(rounds))
		for c := range grid {
			v := make([]uint32, block)
			var last [][4]uint32
			for tid := range block {
				v[tid] = uint32(c*block + tid)
			}
			for r := range rounds {
				for tid := range block {
					v[tid] = v[tid]*1664525 + 1013904223
				}
				last = make([][4]uint32, block)
				for tid := range block {
					q := (tid + 3) & 127
					last[tid] = [4]uint32{v[(tid+1)&127], v[q], uint32(r), uint32(q)}
				}
			}
			for tid := range block {
				g := c*block + tid
				if got := binary.LittleEndian.Uint32(res.Buffers[0].Data[4*g:]); got != v[tid] {
					t.Fatalf("seed %d out[%d] = %#x, want %#x", seed, g, got, v[tid])
				}
				got := u32s(res.Buffers[1].Data[16*g : 16*g+16])
				if [4]uint32{got[0], got[1], got[2], got[3]} != last[tid] {
					t.Fatalf("out4[%d] = %v, want %v", g, got, last[tid])
				}
			}
		}
	}
}

func TestDSMEMRing(t *testing.T) {
	const grid, block, cluster = 8, 64, 4
	for _, jobs := range []int{1, 2} {
		res := launch(t, readKernel(t, "dsmem_ring.ptx"), Config{Grid: dims(grid, 1, 1), Block: dims(block, 1, 1), Cluster: dims(cluster, 1, 1), Jobs: jobs, Seed: uint64(jobs)},
			buf(8*grid*block))
		for cta := range grid {
			rank := cta % cluster
			from := (rank + cluster - 1) % cluster
			fromCTA := cta - rank + from
			for tid := range block {
				got := u32s(res.Buffers[0].Data[8*(cta*block+tid):][:8])
				if got[0] != uint32(from) || got[1] != uint32(fromCTA*1000+tid) {
					t.Fatalf("cta %d tid %d: got %v, want [%d %d]", cta, tid, got, from, fromCTA*1000+tid)
				}
			}
		}
	}
}

// TestLLCReduce runs LLVM-generated PTX with a data-dependent loop,
// shfl.sync.bfly reductions, selp-free predicates and a global atomic.
func TestLLCReduce(t *testing.T) {
	const grid, block, k = 5, 96, 7
	n := grid * block
	in := make([]byte, 4*n*k)
	vals := make([]int32, n*k)
	for i := range vals {
		vals[i] = int32(uint32(i)*2654435761>>7) % 1000
		binary.LittleEndian.PutUint32(in[4*i:], uint32(vals[i]))
	}
	for _, jobs := range []int{1, 2} {
		res := launch(t, readKernel(t, "llc_reduce.ptx"), Config{Grid: dims(grid, 1, 1), Block: dims(block, 1, 1), Jobs: jobs, Seed: uint64(jobs)},
			Arg{IsBuffer: true, Buffer: in}, scalar(k), buf(8*n), buf(n), buf(4*n/32), buf(4))
		var total int32
		for w := 0; w < n/32; w++ {
			var ws int32
			sums := make([]int32, 32)
			for l := range 32 {
				g := 32*w + l
				for i := range k {
					sums[l] += vals[g*k+i]
				}
				ws += sums[l]
			}
			total += ws
			if got := int32(binary.LittleEndian.Uint32(res.Buffers[4].Data[4*w:])); got != ws {
				t.Fatalf("warp %d sum %d, want %d", w, got, ws)
			}
			for l := range 32 {
				g := 32*w + l
				if got := int64(binary.LittleEndian.Uint64(res.Buffers[2].Data[8*g:])); got != int64(sums[l]) {
					t.Fatalf("thread %d sum %d, want %d", g, got, sums[l])
				}
				if got, want := res.Buffers[3].Data[g], b2u(sums[l]*32 > ws); uint64(got) != want {
					t.Fatalf("thread %d above = %d, want %d", g, got, want)
				}
			}
		}
		if got := int32(binary.LittleEndian.Uint32(res.Buffers[5].Data)); got != total {
			t.Fatalf("atomic total %d, want %d", got, total)
		}
	}
}
