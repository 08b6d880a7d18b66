package check

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ptxkit/ptxkit/isa"
)

// TestOriginTable compares the origin table, through its short list and
// past it into its map, with a plain map, on random sequences of
// register names (short and longer than a word) and spaces.
func TestOriginTable(t *testing.T) {
	spaces := []isa.Qual{isa.QNone, isa.QGlobal, isa.QSharedCta, isa.QGeneric, isa.QSharedCluster}
	for seed := range uint64(50) {
		r := rand.New(rand.NewPCG(seed, 1))
		var o originTable
		want := map[string]isa.Qual{}
		names := 1 + r.IntN(40)
		for step := range 400 {
			name := fmt.Sprintf("%%rd%d", r.IntN(names))
			if r.IntN(4) == 0 {
				name = fmt.Sprintf("%%register_%d", r.IntN(names))
			}
			if r.IntN(2) == 0 {
				q := spaces[r.IntN(len(spaces))]
				o.set(name, q)
				want[name] = q
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
}
