package emu

import (
	"math/rand/v2"
	"testing"
)

// TestSharedGuardsCountBytes adds and removes seeded ranges (short and
// long, aligned and not, some past the end of shared memory) and checks
// every granule's count and mask bits against a byte-by-byte model.
func TestSharedGuardsCountBytes(t *testing.T) {
	const size = 3000 // not a multiple of the granule or of a mask word
	c := &CTA{Shared: make([]byte, size)}
	g := newSharedGuards(c)
	// guarded bytes, by byte up to the end of the last granule
	const covered = (size + 1<<granuleShift - 1) >> granuleShift << granuleShift
	var writes, reads [covered]int
	type added struct {
		off, n uint32
		reads  bool
	}
	var live []added
	rng := rand.New(rand.NewPCG(1, 2))
	for step := 0; step < 4000; step++ {
		if len(live) > 0 && rng.IntN(2) == 0 {
			i := rng.IntN(len(live))
			a := live[i]
			live = append(live[:i], live[i+1:]...)
			g.add(a.off, a.n, a.reads, -1)
			modelAdd(writes[:], reads[:], a.off, a.n, a.reads, -1)
		} else {
			a := added{off: uint32(rng.IntN(size)), n: uint32(1 + rng.IntN(300)), reads: rng.IntN(2) == 0}
			if rng.IntN(8) == 0 {
				a.n = uint32(1 + rng.IntN(4))
			}
			live = append(live, a)
			g.add(a.off, a.n, a.reads, 1)
			modelAdd(writes[:], reads[:], a.off, a.n, a.reads, 1)
		}
		for i := range g.writes {
			w, r := 0, 0
			for b := i << granuleShift; b < (i+1)<<granuleShift; b++ {
				w, r = w+writes[b], r+reads[b]
			}
			if int(g.writes[i]) != w || int(g.reads[i]) != r {
				t.Fatalf("step %d granule %d: counts %d/%d, want %d/%d", step, i, g.writes[i], g.reads[i], w, r)
			}
			if wb, rb := g.writeMask[i/64]>>(i%64)&1 == 1, g.readMask[i/64]>>(i%64)&1 == 1; wb != (w != 0) || rb != (r != 0) {
				t.Fatalf("step %d granule %d: mask bits %v/%v, counts %d/%d", step, i, wb, rb, w, r)
			}
		}
	}
}

func modelAdd(writes, reads []int, off, n uint32, withReads bool, d int) {
	for b := off; b < off+n && int(b) < len(writes); b++ {
		writes[b] += d
		if withReads {
			reads[b] += d
		}
	}
}
