package emu

import (
	"encoding/binary"
	"math/bits"
)

// Specialised handlers for the instructions that dominate store-heavy
// kernels. Each does the work of the general handler for one common
// shape and falls back to the general path (which also reports faults)
// for anything unusual.

// sharedFast returns the n bytes at .shared::cta address a when the access
// is aligned, inside the executing CTA's shared memory and unwatched.
func (w *Warp) sharedFast(a uint64, n uint64) []byte {
	c := w.CTA
	off := a & sharedOffMask
	if a>>SharedRankShift != uint64(c.Rank+1) || a&(n-1) != 0 || off+n > uint64(len(c.Shared)) || c.Watch != nil {
		return nil
	}
	return c.Shared[off : off+n]
}

// globalFast returns the n bytes at global address a when they lie in the
// warp's cached region.
func (w *Warp) globalFast(a uint64, n uint64, write bool) []byte {
	r := w.cache
	if r == nil || a&(n-1) != 0 || a < r.Base || a+n > r.Base+uint64(len(r.Data)) || write && r.ReadOnly {
		return nil
	}
	return r.Data[a-r.Base : a-r.Base+n]
}

func (w *Warp) fastBytes(sp Space, a, n uint64, write bool) []byte {
	if sp == SpaceShared {
		return w.sharedFast(a, n)
	}
	return w.globalFast(a, n, write)
}

// execSt32 stores 4 bytes to .global or .shared.
func execSt32(w *Warp, in *Inst) Status {
	r := w.R
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(bits.TrailingZeros32(m))
		a := r[in.A+l] + uint64(in.Off)
		b := w.fastBytes(in.Space, a, 4, true)
		if b == nil {
			if b = w.Bytes(int(l), in.Space, a, 4, true); b == nil {
				return Fault
			}
			w.stats.Stored[in.Space] -= 4
		}
		binary.LittleEndian.PutUint32(b, uint32(r[in.B+l]))
	}
	w.stats.Stored[in.Space] += 4 * uint64(bits.OnesCount32(w.Exec))
	return Continue
}

// execStV4x32 stores a .v4 of 32-bit values to .global or .shared.
func execStV4x32(w *Warp, in *Inst) Status {
	r := w.R
	v0, v1, v2, v3 := in.V[0], in.V[1], in.V[2], in.V[3]
	if v0 < 0 || v1 < 0 || v2 < 0 || v3 < 0 {
		return execStVec(w, in)
	}
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(bits.TrailingZeros32(m))
		a := r[in.A+l] + uint64(in.Off)
		b := w.fastBytes(in.Space, a, 16, true)
		if b == nil {
			if b = w.Bytes(int(l), in.Space, a, 16, true); b == nil {
				return Fault
			}
			w.stats.Stored[in.Space] -= 16
		}
		_ = b[15]
		binary.LittleEndian.PutUint32(b[0:], uint32(r[v0+l]))
		binary.LittleEndian.PutUint32(b[4:], uint32(r[v1+l]))
		binary.LittleEndian.PutUint32(b[8:], uint32(r[v2+l]))
		binary.LittleEndian.PutUint32(b[12:], uint32(r[v3+l]))
	}
	w.stats.Stored[in.Space] += 16 * uint64(bits.OnesCount32(w.Exec))
	return Continue
}

// execLd32 loads 4 bytes (zero- or sign-extended) from .global or .shared.
func execLd32(w *Warp, in *Inst) Status {
	r := w.R
	signed := in.Type.Signed()
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(bits.TrailingZeros32(m))
		a := r[in.A+l] + uint64(in.Off)
		b := w.fastBytes(in.Space, a, 4, false)
		if b == nil {
			if b = w.Bytes(int(l), in.Space, a, 4, false); b == nil {
				return Fault
			}
			w.stats.Loaded[in.Space] -= 4
		}
		v := uint64(binary.LittleEndian.Uint32(b))
		if signed {
			v = uint64(int64(int32(v)))
		}
		if in.D >= 0 {
			r[in.D+l] = v
		}
	}
	w.stats.Loaded[in.Space] += 4 * uint64(bits.OnesCount32(w.Exec))
	return Continue
}

// execLdV4x32 loads a .v4 of unsigned or untyped 32-bit values.
func execLdV4x32(w *Warp, in *Inst) Status {
	r := w.R
	v0, v1, v2, v3 := in.V[0], in.V[1], in.V[2], in.V[3]
	if v0 < 0 || v1 < 0 || v2 < 0 || v3 < 0 || in.Type.Signed() {
		return execLdVec(w, in)
	}
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(bits.TrailingZeros32(m))
		a := r[in.A+l] + uint64(in.Off)
		b := w.fastBytes(in.Space, a, 16, false)
		if b == nil {
			if b = w.Bytes(int(l), in.Space, a, 16, false); b == nil {
				return Fault
			}
			w.stats.Loaded[in.Space] -= 16
		}
		_ = b[15]
		r[v0+l] = uint64(binary.LittleEndian.Uint32(b[0:]))
		r[v1+l] = uint64(binary.LittleEndian.Uint32(b[4:]))
		r[v2+l] = uint64(binary.LittleEndian.Uint32(b[8:]))
		r[v3+l] = uint64(binary.LittleEndian.Uint32(b[12:]))
	}
	w.stats.Loaded[in.Space] += 16 * uint64(bits.OnesCount32(w.Exec))
	return Continue
}

// Bitwise and shift operations on 32-bit registers.

func execAnd32(w *Warp, in *Inst) Status {
	if d, a, b, ok := full(w, in); ok {
		for l := range d {
			d[l] = a[l] & b[l] & 0xffffffff
		}
		return Continue
	}
	r := w.R
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(bits.TrailingZeros32(m))
		r[in.D+l] = (r[in.A+l] & r[in.B+l]) & 0xffffffff
	}
	return Continue
}

func execOr32(w *Warp, in *Inst) Status {
	r := w.R
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(bits.TrailingZeros32(m))
		r[in.D+l] = (r[in.A+l] | r[in.B+l]) & 0xffffffff
	}
	return Continue
}

func execShl32(w *Warp, in *Inst) Status {
	if d, a, b, ok := full(w, in); ok {
		for l := range d {
			if s := b[l] & 0xffffffff; s < 32 {
				d[l] = uint64(uint32(a[l]) << s)
			} else {
				d[l] = 0
			}
		}
		return Continue
	}
	r := w.R
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(bits.TrailingZeros32(m))
		s := r[in.B+l] & 0xffffffff
		var v uint64
		if s < 32 {
			v = uint64(uint32(r[in.A+l]) << s)
		}
		r[in.D+l] = v
	}
	return Continue
}

func execShrU32(w *Warp, in *Inst) Status {
	if d, a, b, ok := full(w, in); ok {
		for l := range d {
			if s := b[l] & 0xffffffff; s < 32 {
				d[l] = uint64(uint32(a[l]) >> s)
			} else {
				d[l] = 0
			}
		}
		return Continue
	}
	r := w.R
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(bits.TrailingZeros32(m))
		s := r[in.B+l] & 0xffffffff
		var v uint64
		if s < 32 {
			v = uint64(uint32(r[in.A+l]) >> s)
		}
		r[in.D+l] = v
	}
	return Continue
}

// execSetpU32 is setp.{eq,ne,lt,le,gt,ge}.u32/.s32 without a combining predicate.
func execSetp32(w *Warp, in *Inst) Status {
	r := w.R
	signed := in.Type.Signed()
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(bits.TrailingZeros32(m))
		a, b := r[in.A+l]&0xffffffff, r[in.B+l]&0xffffffff
		less := a < b
		if signed {
			less = int32(a) < int32(b)
		}
		var p bool
		switch in.Cmp {
		case 1:
			p = a == b
		case 2:
			p = a != b
		case 3:
			p = less
		case 4:
			p = less || a == b
		case 5:
			p = !less && a != b
		case 6:
			p = !less
		}
		v := b2u(p)
		if in.D >= 0 {
			r[in.D+l] = v
		}
		if in.D2 >= 0 {
			r[in.D2+l] = v ^ 1
		}
	}
	return Continue
}

// Full-warp forms: when all 32 lanes execute, operate on whole slot slices
// (no per-lane mask walk, no bounds checks in the loop).

func full(w *Warp, in *Inst) (d, a, b []uint64, ok bool) {
	if w.Exec != ^uint32(0) {
		return nil, nil, nil, false
	}
	r := w.R
	return r[in.D : in.D+32 : in.D+32], r[in.A : in.A+32 : in.A+32], r[in.B : in.B+32 : in.B+32], true
}
