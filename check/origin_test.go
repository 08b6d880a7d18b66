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

// TestOriginTableFull is TestOriginTable with more names than the
// table's slots take (the rest go to its map), across resets.
func TestOriginTableFull(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	spaces := []isa.Qual{isa.QNone, isa.QGlobal, isa.QSharedCta, isa.QLocal, isa.QGeneric}
	var names []string
	for i := range 120 {
		names = append(names, fmt.Sprintf("%%rd%d", i), fmt.Sprintf("%%r%d", i))
	}
	names = append(names, "%a_long_register_name", "%another_long_name_9", "x", "%p")
	var o originTable
	for round := range 20 {
		o.reset()
		want := map[string]isa.Qual{}
		for range 2000 {
			name := names[rng.IntN(len(names))]
			if rng.IntN(2) == 0 {
				sp := spaces[rng.IntN(len(spaces))]
				o.set(name, sp)
				want[name] = sp
				continue
			}
			got, ok := o.get(name)
			if w := want[name]; got != w || ok != (w != isa.QNone) {
				t.Fatalf("round %d: get(%q) = %v, %v; want %v", round, name, got, ok, w)
			}
		}
		for _, name := range names {
			if got, _ := o.get(name); got != want[name] {
				t.Fatalf("round %d, end: get(%q) = %v, want %v", round, name, got, want[name])
			}
		}
	}
}
