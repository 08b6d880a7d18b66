package emu

import "unsafe"

// SSE2 forms of the whole-warp kernels (lanes_vec.go, lanes_vec_amd64.s).

//go:noescape
func addLanes(d, a, b *[32]uint64, mask uint64)

//go:noescape
func subLanes(d, a, b *[32]uint64, mask uint64)

//go:noescape
func andLanes(d, a, b *[32]uint64, mask uint64)

//go:noescape
func orLanes(d, a, b *[32]uint64, mask uint64)

//go:noescape
func xorLanes(d, a, b *[32]uint64, mask uint64)

// The 32-bit shifts need AVX2's per-lane shift counts (VPSRLVQ, VPSLLVQ);
// without AVX2 they are the Go loops.

// hasAVX2 reports whether the processor and the operating system support
// AVX2 (CPUID and XGETBV, lanes_vec_amd64.s).
func hasAVX2() bool

var avx2 = hasAVX2()

//go:noescape
func shrLanes32AVX2(d, a, b *[32]uint64)

//go:noescape
func shlLanes32AVX2(d, a, b *[32]uint64)

func shrLanes32(d, a, b *[32]uint64) {
	if avx2 {
		shrLanes32AVX2(d, a, b)
		return
	}
	shrLanes32Go(d, a, b)
}

func shlLanes32(d, a, b *[32]uint64) {
	if avx2 {
		shlLanes32AVX2(d, a, b)
		return
	}
	shlLanes32Go(d, a, b)
}

//go:noescape
func madLo32Lanes(d, a, b, c *[32]uint64)

//go:noescape
func mulLo32Lanes(d, a, b *[32]uint64)

//go:noescape
func cmpEq32Lanes(p, x, y *[32]uint64, inv uint64)

//go:noescape
func cmpGt32Lanes(p, x, y *[32]uint64, flip uint32, inv uint64)

//go:noescape
func shrS32LanesAVX2(d, a, b *[32]uint64)

func shrS32Lanes(d, a, b *[32]uint64) {
	if avx2 {
		shrS32LanesAVX2(d, a, b)
		return
	}
	shrS32LanesGo(d, a, b)
}

//go:noescape
func selpLanes(d, a, b, c *[32]uint64, mask uint64)

// hasFMA reports whether the processor has FMA3 (CPUID leaf 1, ECX bit
// 12); it is asked only where hasAVX2 holds.
func hasFMA() bool

var avx2FMA = avx2 && hasFMA()

// fmaF32LanesAVX2 is fmaF32LanesGo with VFMADD231PS: the fused
// multiply-add of binary32 values rounds once, to nearest even, as
// fma.rn.f32 does (the default MXCSR keeps subnormals).
//
//go:noescape
func fmaF32LanesAVX2(d, a, b, c *[32]uint64)

func fmaF32Lanes(d, a, b, c *[32]uint64) {
	if avx2FMA {
		fmaF32LanesAVX2(d, a, b, c)
		return
	}
	fmaF32LanesGo(d, a, b, c)
}

// stV4x32Lanes is stV4x32LanesGo in SSE2, two lanes a step (the low
// halves of four lane pairs packed and interleaved into two 16-byte
// stores, lane l's before lane l+1's).
//
//go:noescape
func stV4x32Lanes(p unsafe.Pointer, addr *[32]uint64, rel uint64, x, y, z, u *[32]uint64)

// ldV4x32Lanes is ldV4x32LanesGo in SSE2, two lanes a step (both lanes'
// addresses read before any destination is written).
//
//go:noescape
func ldV4x32Lanes(p unsafe.Pointer, addr *[32]uint64, rel uint64, x, y, z, u *[32]uint64)
