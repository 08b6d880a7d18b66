package tmem

import "testing"

func benchForms() []Form {
	return []Form{
		{Shape: Shape32x32b, Num: 8},
		{Shape: Shape32x32b, Num: 128},
		{Shape: Shape16x256b, Num: 32, Packed: true},
	}
}

// BenchmarkStore measures one warp's tcgen05.st (check, pending record and
// cell writes) per iteration, with tcgen05.wait::st between iterations.
func BenchmarkStore(b *testing.B) {
	for _, f := range benchForms() {
		b.Run(f.String(), func(b *testing.B) {
			m := New()
			m.Alloc.TryAlloc(CTAGroup1, 512)
			regs := regsFor(f, 1)
			acc := Uniform(0, 0)
			b.SetBytes(int64(32 * 4 * f.Regs()))
			for b.Loop() {
				if err := m.Store(acc, f, regs); err != nil {
					b.Fatal(err)
				}
				for t := range 32 {
					m.WaitStores(t)
				}
			}
		})
	}
}

// BenchmarkLoad measures one warp's tcgen05.ld per iteration.
func BenchmarkLoad(b *testing.B) {
	for _, f := range benchForms() {
		b.Run(f.String(), func(b *testing.B) {
			m := New()
			m.Alloc.TryAlloc(CTAGroup1, 512)
			out := regsFor(f, 0)
			acc := Uniform(0, 0)
			b.SetBytes(int64(32 * 4 * f.Regs()))
			for b.Loop() {
				if err := m.Load(acc, f, out); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
