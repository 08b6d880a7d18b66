package emu

import (
	"math"
	"unsafe"
)

// Whole-warp kernels of the converged forms: each applies one operation to
// the 32 lanes of register slots (lanes), lane l of d computed from lane l
// of the sources only, so d may be one of the sources. On amd64 they are
// SSE2 loops over two lanes at a time (lanes_vec_amd64.s; SSE2 is part of
// every amd64 processor), elsewhere the Go loops below. The Go loops are
// the definition: TestVectorKernelsMatchGo compares the two.

// addLanesGo sets d = (a + b) & mask.
func addLanesGo(d, a, b *[32]uint64, mask uint64) {
	for l := range d {
		d[l] = (a[l] + b[l]) & mask
	}
}

// subLanesGo sets d = (a - b) & mask.
func subLanesGo(d, a, b *[32]uint64, mask uint64) {
	for l := range d {
		d[l] = (a[l] - b[l]) & mask
	}
}

// andLanesGo sets d = a & b & mask.
func andLanesGo(d, a, b *[32]uint64, mask uint64) {
	for l := range d {
		d[l] = a[l] & b[l] & mask
	}
}

// orLanesGo sets d = (a | b) & mask.
func orLanesGo(d, a, b *[32]uint64, mask uint64) {
	for l := range d {
		d[l] = (a[l] | b[l]) & mask
	}
}

// xorLanesGo sets d = (a ^ b) & mask.
func xorLanesGo(d, a, b *[32]uint64, mask uint64) {
	for l := range d {
		d[l] = (a[l] ^ b[l]) & mask
	}
}

// movLanes sets d = a & mask.
func movLanes(d, a *[32]uint64, mask uint64) { andLanes(d, a, a, mask) }

// shrLanes32Go sets d = uint32(a) >> uint32(b), 0 for a count of 32 or more.
func shrLanes32Go(d, a, b *[32]uint64) {
	for l := range d {
		if s := b[l] & 0xffffffff; s < 32 {
			d[l] = uint64(uint32(a[l]) >> s)
		} else {
			d[l] = 0
		}
	}
}

// shlLanes32Go sets d = uint32(a) << uint32(b), 0 for a count of 32 or more.
func shlLanes32Go(d, a, b *[32]uint64) {
	for l := range d {
		if s := b[l] & 0xffffffff; s < 32 {
			d[l] = uint64(uint32(a[l]) << s)
		} else {
			d[l] = 0
		}
	}
}

// madLo32LanesGo sets d = uint32(a) * uint32(b) + uint32(c), the low 32
// bits (mad.lo and, with c a zero slot, mul.lo of 32-bit integers).
func madLo32LanesGo(d, a, b, c *[32]uint64) {
	for l := range d {
		d[l] = uint64(uint32(a[l])*uint32(b[l]) + uint32(c[l]))
	}
}

// mulLo32LanesGo sets d = uint32(a) * uint32(b), the low 32 bits.
func mulLo32LanesGo(d, a, b *[32]uint64) {
	for l := range d {
		d[l] = uint64(uint32(a[l]) * uint32(b[l]))
	}
}

// cmpEq32LanesGo sets p = (uint32(x) == uint32(y)) ^ inv, as 0 or 1.
func cmpEq32LanesGo(p, x, y *[32]uint64, inv uint64) {
	for l := range p {
		p[l] = b2u(uint32(x[l]) == uint32(y[l])) ^ inv
	}
}

// cmpGt32LanesGo sets p = (int32(x^flip) > int32(y^flip)) ^ inv, as 0 or
// 1: a signed comparison with flip 0, an unsigned one with flip 1<<31.
func cmpGt32LanesGo(p, x, y *[32]uint64, flip uint32, inv uint64) {
	for l := range p {
		p[l] = b2u(int32(uint32(x[l])^flip) > int32(uint32(y[l])^flip)) ^ inv
	}
}

// shrS32LanesGo sets d = int32(a) >> min(uint32(b), 31), as 32 bits.
func shrS32LanesGo(d, a, b *[32]uint64) {
	for l := range d {
		d[l] = uint64(uint32(int32(a[l]) >> min(b[l]&0xffffffff, 31)))
	}
}

// selpLanesGo sets d = (c&1 != 0 ? a : b) & mask.
func selpLanesGo(d, a, b, c *[32]uint64, mask uint64) {
	for l := range d {
		sel := -(c[l] & 1) // all ones when the predicate holds
		d[l] = (a[l]&sel | b[l]&^sel) & mask
	}
}

// fmaF32LanesGo sets d = fma.rn.f32(a, b, c) on the binary32 bits in the
// low half of each lane, a NaN result being the canonical NaN.
func fmaF32LanesGo(d, a, b, c *[32]uint64) {
	f := func(x uint64) float32 { return math.Float32frombits(uint32(x)) }
	for l := range d {
		d[l] = f32Result(fmaF32(f(a[l]), f(b[l]), f(c[l])))
	}
}

// stV4x32LanesGo stores, for each lane in order, the low 32 bits of x, y,
// z and u at p+addr[l]-rel (st.v4 of 32 bits; the caller checked every
// lane's address against the window p starts).
func stV4x32LanesGo(p unsafe.Pointer, addr *[32]uint64, rel uint64, x, y, z, u *[32]uint64) {
	for l, a := range addr {
		putV4x32(bytesAt16(p, a-rel), x[l], y[l], z[l], u[l])
	}
}

// ldV4x32LanesGo loads, for each lane, four 32-bit values at p+addr[l]-rel
// into x, y, z and u, zero-extended (ld.v4 of unsigned 32 bits).
func ldV4x32LanesGo(p unsafe.Pointer, addr *[32]uint64, rel uint64, x, y, z, u *[32]uint64) {
	for l := range x {
		x[l], y[l], z[l], u[l] = getV4x32(bytesAt16(p, addr[l]-rel))
	}
}
