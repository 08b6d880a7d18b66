package emu

import (
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// TestVectorKernelsMatchGo runs each whole-warp kernel of the platform
// (SSE2 on amd64) against its Go definition on random and edge values,
// every mask the handlers pass, with the destination apart from and equal
// to each source.
func TestVectorKernelsMatchGo(t *testing.T) {
	kernels := []struct {
		name     string
		vec, def func(d, a, b *[32]uint64, mask uint64)
	}{
		{"add", addLanes, addLanesGo}, {"sub", subLanes, subLanesGo}, {"and", andLanes, andLanesGo},
		{"or", orLanes, orLanesGo}, {"xor", xorLanes, xorLanesGo},
		{"mov", func(d, a, _ *[32]uint64, m uint64) { movLanes(d, a, m) },
			func(d, a, _ *[32]uint64, m uint64) { andLanesGo(d, a, a, m) }},
		{"mul.lo", func(d, a, b *[32]uint64, _ uint64) { mulLo32Lanes(d, a, b) },
			func(d, a, b *[32]uint64, _ uint64) { mulLo32LanesGo(d, a, b) }},
		{"mad.lo a*b+a", func(d, a, b *[32]uint64, _ uint64) { madLo32Lanes(d, a, b, a) },
			func(d, a, b *[32]uint64, _ uint64) { madLo32LanesGo(d, a, b, a) }},
		{"selp a b a", func(d, a, b *[32]uint64, m uint64) { selpLanes(d, a, b, a, m) },
			func(d, a, b *[32]uint64, m uint64) { selpLanesGo(d, a, b, a, m) }},
		{"selp a b b", func(d, a, b *[32]uint64, m uint64) { selpLanes(d, a, b, b, m) },
			func(d, a, b *[32]uint64, m uint64) { selpLanesGo(d, a, b, b, m) }},
		{"mad.lo a*b+b", func(d, a, b *[32]uint64, _ uint64) { madLo32Lanes(d, a, b, b) },
			func(d, a, b *[32]uint64, _ uint64) { madLo32LanesGo(d, a, b, b) }},
		{"fma.rn.f32 a*b+a", func(d, a, b *[32]uint64, _ uint64) { fmaF32Lanes(d, a, b, a) },
			func(d, a, b *[32]uint64, _ uint64) { fmaF32LanesGo(d, a, b, a) }},
		{"fma.rn.f32 a*b+b", func(d, a, b *[32]uint64, _ uint64) { fmaF32Lanes(d, a, b, b) },
			func(d, a, b *[32]uint64, _ uint64) { fmaF32LanesGo(d, a, b, b) }},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	edges := []uint64{0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 1 << 32, ^uint64(0), 1 << 63}
	fill := func(x *[32]uint64) {
		for l := range x {
			if rng.IntN(3) == 0 {
				x[l] = edges[rng.IntN(len(edges))]
			} else {
				x[l] = rng.Uint64()
			}
		}
	}
	for _, k := range kernels {
		for _, mask := range []uint64{0xff, 0xffff, 0xffffffff, ^uint64(0)} {
			for round := range 20 {
				var a, b, d0 [32]uint64
				fill(&a)
				fill(&b)
				fill(&d0)
				for alias := range 3 {
					want, got := d0, d0
					wa, wb, ga, gb := &a, &b, &a, &b
					ca, cb := a, b
					switch alias {
					case 1: // d is a
						want, got = a, a
						wa, ga = &want, &got
					case 2: // d is b
						want, got = b, b
						wb, gb = &want, &got
					}
					k.def(&want, wa, wb, mask)
					k.vec(&got, ga, gb, mask)
					if want != got {
						t.Fatalf("%s mask %#x round %d alias %d: got %x, want %x", k.name, mask, round, alias, got, want)
					}
					if a != ca || b != cb {
						t.Fatalf("%s changed a source it does not write", k.name)
					}
				}
			}
		}
	}
}

// TestShiftKernelsMatchGo does the same for the 32-bit shifts, with
// counts around 32 and 64 and counts whose upper 32 bits are set; on
// amd64 it runs both the AVX2 form, where the processor has it, and the
// Go form behind shrLanes32 and shlLanes32.
func TestShiftKernelsMatchGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	counts := []uint64{0, 1, 5, 16, 31, 32, 33, 63, 64, 65, 1<<32 | 3, 1 << 40, ^uint64(0)}
	kernels := []struct {
		name     string
		vec, def func(d, a, b *[32]uint64)
	}{{"shr", shrLanes32, shrLanes32Go}, {"shl", shlLanes32, shlLanes32Go}, {"shr.s32", shrS32Lanes, shrS32LanesGo}}
	for _, k := range kernels {
		for round := range 50 {
			var a, b [32]uint64
			for l := range a {
				a[l] = rng.Uint64()
				if rng.IntN(2) == 0 {
					a[l] &= 0xffffffff
				}
				b[l] = counts[rng.IntN(len(counts))]
				if rng.IntN(3) == 0 {
					b[l] = uint64(rng.IntN(40))
				}
			}
			for alias := range 3 {
				var want, got [32]uint64
				wa, wb, ga, gb := &a, &b, &a, &b
				switch alias {
				case 1:
					want, got = a, a
					wa, ga = &want, &got
				case 2:
					want, got = b, b
					wb, gb = &want, &got
				}
				k.def(&want, wa, wb)
				k.vec(&got, ga, gb)
				if want != got {
					t.Fatalf("%s round %d alias %d: got %x, want %x (a %x, b %x)", k.name, round, alias, got, want, a, b)
				}
			}
		}
	}
}

// TestCompareKernelsMatchGo compares the 32-bit comparisons with their Go
// definitions: signed and unsigned, inverted or not, on values that differ
// only above bit 31, equal values and the extremes, the destination apart
// from and equal to a source.
func TestCompareKernelsMatchGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	vals := []uint64{0, 1, 5, 1<<32 | 5, 0x7fffffff, 0x80000000, 0xffffffff, ^uint64(0), 1 << 63}
	for round := range 60 {
		var x, y [32]uint64
		for l := range x {
			x[l], y[l] = vals[rng.IntN(len(vals))], vals[rng.IntN(len(vals))]
			if rng.IntN(3) == 0 {
				x[l], y[l] = rng.Uint64(), rng.Uint64()
			}
			if rng.IntN(4) == 0 {
				y[l] = x[l]
			}
		}
		for _, inv := range []uint64{0, 1} {
			for _, flip := range []uint32{0, 1 << 31} {
				var want, got [32]uint64
				cmpGt32LanesGo(&want, &x, &y, flip, inv)
				cmpGt32Lanes(&got, &x, &y, flip, inv)
				if want != got {
					t.Fatalf("gt flip %#x inv %d round %d: got %x, want %x", flip, inv, round, got, want)
				}
				want, got = x, x
				cmpGt32LanesGo(&want, &want, &y, flip, inv)
				cmpGt32Lanes(&got, &got, &y, flip, inv)
				if want != got {
					t.Fatalf("gt in place flip %#x inv %d round %d: got %x, want %x", flip, inv, round, got, want)
				}
			}
			var want, got [32]uint64
			cmpEq32LanesGo(&want, &x, &y, inv)
			cmpEq32Lanes(&got, &x, &y, inv)
			if want != got {
				t.Fatalf("eq inv %d round %d: got %x, want %x", inv, round, got, want)
			}
		}
	}
}

// TestFmaF32LanesMatchGo runs the platform's fma.rn.f32 kernel against
// the Go definition on binary32 values whose product and addend overlap
// (where rounding matters), the special values, and the double-rounding
// case of TestFmaF32RoundsOnce in every lane position.
func TestFmaF32LanesMatchGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	specials := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 0x1p-149, -0x1p-140, math.MaxFloat32, 1}
	f := func(v float32) uint64 { return uint64(math.Float32bits(v)) }
	for round := range 2000 {
		var a, b, c, got, want [32]uint64
		for l := range a {
			x := float32(rng.NormFloat64()) * float32(math.Ldexp(1, rng.IntN(40)-20))
			y := float32(rng.NormFloat64())
			z := -x * y * float32(1+rng.NormFloat64()*0x1p-10)
			if rng.IntN(8) == 0 {
				z = specials[rng.IntN(len(specials))]
			}
			a[l], b[l], c[l] = f(x), f(y), f(z)
		}
		if round < 32 {
			a[round], b[round], c[round] = f(float32(8390627)*0x1p-47), f(float32(16773179)*0x1p-24), f(1)
		}
		fmaF32Lanes(&got, &a, &b, &c)
		fmaF32LanesGo(&want, &a, &b, &c)
		if got != want {
			for l := range got {
				if got[l] != want[l] {
					t.Fatalf("round %d lane %d: fma(%x, %x, %x) = %x, want %x", round, l, a[l], b[l], c[l], got[l], want[l])
				}
			}
		}
		if round < 32 && want[round] != f(1+0x1p-23) {
			t.Fatalf("lane %d: the double-rounding case gave %x", round, want[round])
		}
	}
}

// TestV4x32KernelsMatchGo compares the st.v4/ld.v4 lane kernels with their
// Go definitions on a 1 KiB window: random 16-byte-aligned offsets, some
// lanes sharing an address (the higher lane's store must win), values with
// high halves set (ignored by the store), and for the load a destination
// that is the address slot itself.
func TestV4x32KernelsMatchGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const base, size = 0x10000, 1024
	for round := range 200 {
		var addr, x, y, z, u [32]uint64
		for l := range addr {
			addr[l] = base + 16*uint64(rng.IntN(size/16))
			if l > 0 && rng.IntN(4) == 0 {
				addr[l] = addr[rng.IntN(l)]
			}
			x[l], y[l], z[l], u[l] = rng.Uint64(), rng.Uint64(), rng.Uint64(), rng.Uint64()
		}
		disp := uint64(rng.IntN(3)) * 16
		rel := base - disp
		mem := make([]byte, size+32)
		for i := range mem {
			mem[i] = byte(rng.Uint32())
		}
		want := append([]byte(nil), mem...)
		p, pw := unsafe.Pointer(&mem[0]), unsafe.Pointer(&want[0])
		stV4x32Lanes(p, &addr, rel, &x, &y, &z, &u)
		stV4x32LanesGo(pw, &addr, rel, &x, &y, &z, &u)
		if string(mem) != string(want) {
			t.Fatalf("round %d: st.v4 kernel wrote other bytes than the Go loop", round)
		}
		var gx, gy, gz, gu, wx, wy, wz, wu [32]uint64
		ldV4x32Lanes(p, &addr, rel, &gx, &gy, &gz, &gu)
		ldV4x32LanesGo(p, &addr, rel, &wx, &wy, &wz, &wu)
		if gx != wx || gy != wy || gz != wz || gu != wu {
			t.Fatalf("round %d: ld.v4 kernel loaded %v %v %v %v, want %v %v %v %v", round, gx, gy, gz, gu, wx, wy, wz, wu)
		}
		ga, wa := addr, addr // the address slot as the first destination
		ldV4x32Lanes(p, &ga, rel, &ga, &gy, &gz, &gu)
		ldV4x32LanesGo(p, &wa, rel, &wa, &wy, &wz, &wu)
		if ga != wa || gy != wy || gz != wz || gu != wu {
			t.Fatalf("round %d: ld.v4 into its address slot: %v, want %v", round, ga, wa)
		}
	}
}
