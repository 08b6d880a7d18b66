package check

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ptxkit/ptxkit/isa"
)

// TestOriginTable compares the origin table, through its slots and past
// them into its map, with a plain map, on random sequences of register
// names (short and longer than a word) and spaces.
func TestOriginTable(t *testing.T) {
	full := 0 // steps with a short name in the map: the slots were full
	spaces := []isa.Qual{isa.QNone, isa.QGlobal, isa.QSharedCta, isa.QGeneric, isa.QSharedCluster}
	for seed := range uint64(50) {
		r := rand.New(rand.NewPCG(seed, 1))
		var o originTable
		want := map[string]isa.Qual{}
		names := 1 + r.IntN(120) // past the table's 48 short names at times
		for step := range 400 {
			name := fmt.Sprintf("%%rd%d", r.IntN(names))
			if r.IntN(4) == 0 {
				name = fmt.Sprintf("%%register_%d", r.IntN(names))
			}
			if r.IntN(2) == 0 {
				q := spaces[r.IntN(len(spaces))]
				o.set(name, q)
				want[name] = q
				if len(o.used) == originMaxUsed && len(name) <= 8 && hasKey(o.m, name) {
					full++
				}
			}
			got, ok := o.get(name)
			if w := want[name]; got != w || ok != (w != isa.QNone) {
				t.Fatalf("seed %d step %d: get(%s) = %v, %v; want %v", seed, step, name, got, ok, w)
			}
			if r.IntN(150) == 0 {
				o.reset()
				clear(want)
			}
		}
	}
	if full == 0 {
		t.Error("the slots were never full: the test does not reach the map for short names")
	}
}
