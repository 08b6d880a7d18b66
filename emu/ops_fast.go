package emu

import (
	"encoding/binary"
	"math/bits"
)

// Specialised handlers for the instructions that dominate store-heavy
// kernels. Each does the work of the general handler for one common
// shape and falls back to the general path (which also reports faults)
// for anything unusual.

// fastWindow is the byte window a memory handler may use without checks
// for one instruction: the executing CTA's shared memory (but the granules
// its Watch marks), or the global allocation the warp last touched.
// Addresses outside it, or misaligned, take the checked path
// (Warp.Bytes), which also reports.
type fastWindow struct {
	base    uint64 // address of data[0]
	data    []byte
	watched *[]uint64 // &CTA.WatchRead or &CTA.WatchWrite
	race    *Warp     // --race: the warp whose accesses the detector checks (race.go)
	space   Space
	write   bool
}

func (w *Warp) window(sp Space, write bool) fastWindow {
	f := w.fastWindow(sp, write)
	if w.CTA.cluster.race != nil && f.data != nil {
		f.race, f.space, f.write = w, sp, write
	}
	return f
}

func (w *Warp) fastWindow(sp Space, write bool) fastWindow {
	switch sp {
	case SpaceShared:
		c := w.CTA
		base := uint64(c.Rank+1) << sharedRankShift
		if c.Watch == nil {
			return fastWindow{base: base, data: c.Shared}
		}
		m := &c.WatchRead
		if write {
			m = &c.WatchWrite
		}
		if *m != nil {
			return fastWindow{base: base, data: c.Shared, watched: m}
		}
	case SpaceGlobal:
		if r := w.cache; r != nil && !(write && r.ReadOnly) {
			return fastWindow{base: r.Base, data: r.Data}
		}
	}
	return fastWindow{}
}

// at returns the n bytes at a (n a power of two, at most 16) for lane l,
// or nil when a is misaligned, outside, in a granule the CTA's watch must
// see, or (under --race) racing: the checked path then reports it.
func (f *fastWindow) at(l int32, a, n uint64) []byte {
	off := a - f.base
	if a&(n-1) != 0 || off >= uint64(len(f.data)) || uint64(len(f.data))-off < n {
		return nil
	}
	// n is at most 16 and a multiple of it, so the bytes lie in one
	// 16-byte granule of the watch masks.
	if f.watched != nil && (*f.watched)[off>>10]>>(off>>4&63)&1 != 0 {
		return nil
	}
	if f.race != nil && !f.race.raceFast(f, l, a, off, int(n)) {
		return nil
	}
	return f.data[off : off+n : off+n]
}

// slowBytes is the checked path of the fast handlers; it does not count
// the access (the handler counts all lanes at once).
func (w *Warp) slowBytes(l int32, sp Space, a uint64, n int, write bool) []byte {
	b := w.Bytes(int(l), sp, a, n, write)
	if b != nil {
		if write {
			w.stats.Stored[sp] -= uint64(n)
		} else {
			w.stats.Loaded[sp] -= uint64(n)
		}
	}
	return b
}

// execSt32 stores 4 bytes to .global or .shared.
func execSt32(w *Warp, in *Inst) Status {
	r := w.R
	win := w.window(in.Space, true)
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(bits.TrailingZeros32(m))
		a := r[in.A+l] + uint64(in.Off)
		b := win.at(l, a, 4)
		if b == nil {
			if b = w.slowBytes(l, in.Space, a, 4, true); b == nil {
				return Fault
			}
			win = w.window(in.Space, true)
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
	win := w.window(in.Space, true)
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(bits.TrailingZeros32(m))
		a := r[in.A+l] + uint64(in.Off)
		b := win.at(l, a, 16)
		if b == nil {
			if b = w.slowBytes(l, in.Space, a, 16, true); b == nil {
				return Fault
			}
			win = w.window(in.Space, true)
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
	win := w.window(in.Space, false)
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(bits.TrailingZeros32(m))
		a := r[in.A+l] + uint64(in.Off)
		b := win.at(l, a, 4)
		if b == nil {
			if b = w.slowBytes(l, in.Space, a, 4, false); b == nil {
				return Fault
			}
			win = w.window(in.Space, false)
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
	win := w.window(in.Space, false)
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(bits.TrailingZeros32(m))
		a := r[in.A+l] + uint64(in.Off)
		b := win.at(l, a, 16)
		if b == nil {
			if b = w.slowBytes(l, in.Space, a, 16, false); b == nil {
				return Fault
			}
			win = w.window(in.Space, false)
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
	if d, a, b, ok := full(w, in); ok {
		for l := range d {
			d[l] = (a[l] | b[l]) & 0xffffffff
		}
		return Continue
	}
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
	if w.Exec == allLanes {
		setp32Lanes(w, in)
		return Continue
	}
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

func full(w *Warp, in *Inst) (d, a, b *[32]uint64, ok bool) {
	if w.Exec != allLanes {
		return nil, nil, nil, false
	}
	r := w.R
	return lanes(r, in.D), lanes(r, in.A), lanes(r, in.B), true
}
