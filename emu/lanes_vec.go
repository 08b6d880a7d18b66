package emu

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
