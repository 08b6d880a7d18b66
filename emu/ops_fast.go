package emu

import (
	"encoding/binary"
	"math/bits"
	"unsafe"
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

// start returns the address of the window's first byte, for the accesses
// a per-warp check (warpWindow) has proved to lie inside it.
func (f *fastWindow) start() unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(f.data)) }

// bytesAt4 and bytesAt16 are the 4 and 16 bytes at offset off of a window
// that starts at p. They do not check: the caller has checked the offset
// of every lane against the window (warpWindow).
func bytesAt4(p unsafe.Pointer, off uint64) *[4]byte   { return (*[4]byte)(unsafe.Add(p, off)) }
func bytesAt16(p unsafe.Pointer, off uint64) *[16]byte { return (*[16]byte)(unsafe.Add(p, off)) }

// putV4x32 and getV4x32 store and load four little-endian 32-bit values.
func putV4x32(b *[16]byte, x, y, z, u uint64) {
	binary.LittleEndian.PutUint32(b[0:], uint32(x))
	binary.LittleEndian.PutUint32(b[4:], uint32(y))
	binary.LittleEndian.PutUint32(b[8:], uint32(z))
	binary.LittleEndian.PutUint32(b[12:], uint32(u))
}

func getV4x32(b *[16]byte) (x, y, z, u uint64) {
	return uint64(binary.LittleEndian.Uint32(b[0:])), uint64(binary.LittleEndian.Uint32(b[4:])),
		uint64(binary.LittleEndian.Uint32(b[8:])), uint64(binary.LittleEndian.Uint32(b[12:]))
}

// holds reports whether [lo, hi+n) lies in the window (lo <= hi).
func (f *fastWindow) holds(lo, hi, n uint64) bool {
	size := uint64(len(f.data))
	return lo >= f.base && hi-f.base < size && size-(hi-f.base) >= n
}

// laneBounds returns the OR, the minimum and the maximum of addr[lane]+disp
// over the lanes in exec (not empty).
func laneBounds(addr *[32]uint64, exec uint32, disp uint64) (or, lo, hi uint64) {
	lo = ^uint64(0)
	if exec == ^uint32(0) {
		for _, a := range addr {
			a += disp
			or |= a
			lo = min(lo, a)
			hi = max(hi, a)
		}
		return or, lo, hi
	}
	for m := exec; m != 0; m &= m - 1 {
		a := addr[bits.TrailingZeros32(m)&31] + disp
		or |= a
		lo = min(lo, a)
		hi = max(hi, a)
	}
	return or, lo, hi
}

// warpWindow returns the window for the warp's n-byte access at
// addr[lane]+disp and whether every lane may use it unchecked: the
// addresses are aligned (their OR), lie in the window (their minimum and
// maximum), and there is no watch, race check or probe to consult. The
// handler then checks the warp once instead of each lane. Otherwise the
// window is the per-lane path's, whose faults and reports are unchanged.
func (w *Warp) warpWindow(sp Space, write bool, addr *[32]uint64, disp, n uint64) (fastWindow, bool) {
	if w.CTA.cluster.race != nil {
		return w.raceWarpWindow(sp, write, addr, disp, n) // race_warp.go
	}
	if warpChecks {
		switch sp {
		case SpaceShared:
			if c := w.CTA; c.Watch == nil {
				f := fastWindow{base: uint64(c.Rank+1) << sharedRankShift, data: c.Shared}
				if f.coversLanes(addr, w.Exec, disp, n) {
					return f, true
				}
			}
		case SpaceGlobal:
			if r := w.cache; r != nil && !(write && r.ReadOnly) {
				if f := (fastWindow{base: r.Base, data: r.Data}); f.coversLanes(addr, w.Exec, disp, n) {
					return f, true
				}
			}
			if f, ok := w.prevSpan(write, addr, disp, n); ok {
				return f, true
			}
			if or, lo, hi := laneBounds(addr, w.Exec, disp); or&(n-1) == 0 {
				if f, ok := w.globalSpan(write, lo, hi, n); ok {
					return f, true
				}
			}
		}
	}
	return w.window(sp, write), false
}

// coversLanes reports whether, for every lane in exec, the n bytes at
// addr[lane]+disp are n-aligned and lie inside the window: the test of
// laneBounds and holds in one pass over the lanes' offsets from the
// window's start (an address below the start wraps to a large offset).
// The window's start must itself be n-aligned for the offsets' alignment
// to be the addresses'; a window that is not takes the other test.
func (f *fastWindow) coversLanes(addr *[32]uint64, exec uint32, disp, n uint64) bool {
	size := uint64(len(f.data))
	if f.base&(n-1) != 0 || size < n {
		return false
	}
	rel, limit := f.base-disp, size-n
	// The first executing lane decides at once for a warp that uses
	// another allocation (a kernel that alternates between buffers).
	if addr[bits.TrailingZeros32(exec)&31]-rel > limit {
		return false
	}
	if exec != allLanes {
		var or, hi uint64
		for m := exec; m != 0; m &= m - 1 {
			off := addr[bits.TrailingZeros32(m)&31] - rel
			or |= off
			hi = max(hi, off)
		}
		return or&(n-1) == 0 && hi <= limit
	}
	// Four lanes a step, the maximum in two accumulators.
	qs := (*[8][4]uint64)(unsafe.Pointer(addr))
	var or, hi0, hi1 uint64
	for i := range qs {
		q := &qs[i]
		o0, o1, o2, o3 := q[0]-rel, q[1]-rel, q[2]-rel, q[3]-rel
		or |= o0 | o1 | o2 | o3
		hi0, hi1 = max(hi0, o0, o1), max(hi1, o2, o3)
	}
	return or&(n-1) == 0 && max(hi0, hi1) <= limit
}

// globalSpan returns the global allocation that holds [lo, hi+n): the one
// the warp last touched, or else the one a lookup finds, which becomes the
// warp's (as the per-lane path makes it at its first lane, whose check,
// with nothing to report, is that lookup alone). Under an asynchronous
// operation's watch or a store probe the warp keeps no allocation and the
// lanes take the checked path.
func (w *Warp) globalSpan(write bool, lo, hi, n uint64) (fastWindow, bool) {
	if r := w.cache; r != nil && !(write && r.ReadOnly) {
		if f := (fastWindow{base: r.Base, data: r.Data}); f.holds(lo, hi, n) {
			return f, true
		}
	}
	if w.watchGlobal || w.probe != nil || hi-lo >= 1<<32 {
		return fastWindow{}, false
	}
	r := w.CTA.cluster.Mem.global.find(lo, int(hi-lo+n))
	if r == nil || write && r.ReadOnly {
		return fastWindow{}, false
	}
	w.prevCache, w.cache = w.cache, r
	return fastWindow{base: r.Base, data: r.Data}, true
}

// prevSpan is globalSpan's lookup for the allocation the warp used before
// its last one (a kernel that alternates between two buffers): when that
// allocation holds every lane, it is the one the lookup would find (the
// allocations are disjoint and none is freed while a launch runs), and it
// becomes the warp's, as the lookup's result would.
func (w *Warp) prevSpan(write bool, addr *[32]uint64, disp, n uint64) (fastWindow, bool) {
	r := w.prevCache
	if r == nil || write && r.ReadOnly || w.watchGlobal || w.probe != nil || uint64(len(r.Data)) > 1<<32 {
		return fastWindow{}, false
	}
	f := fastWindow{base: r.Base, data: r.Data}
	if !f.coversLanes(addr, w.Exec, disp, n) {
		return fastWindow{}, false
	}
	w.prevCache, w.cache = w.cache, r
	return f, true
}

// warpChecks enables warpWindow's check of a whole warp; the tests turn
// it off to compare the per-warp path with the per-lane one.
var warpChecks = true

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
	addr := lanes(r, in.A)
	if win, ok := w.warpWindow(in.Space, true, addr, uint64(in.Off), 4); ok {
		p, rel, v := win.start(), win.base-uint64(in.Off), lanes(r, in.B)
		if w.Exec == allLanes {
			for l, a := range addr {
				binary.LittleEndian.PutUint32(bytesAt4(p, a-rel)[:], uint32(v[l]))
			}
		} else {
			for m := w.Exec; m != 0; m &= m - 1 {
				l := bits.TrailingZeros32(m) & 31
				binary.LittleEndian.PutUint32(bytesAt4(p, addr[l]-rel)[:], uint32(v[l]))
			}
		}
	} else if !w.st32Lanes(in, win) {
		return Fault
	}
	w.stats.Stored[in.Space] += 4 * uint64(bits.OnesCount32(w.Exec))
	return Continue
}

// st32Lanes is execSt32 checking each lane; false after a fault.
func (w *Warp) st32Lanes(in *Inst, win fastWindow) bool {
	r := w.R
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(bits.TrailingZeros32(m))
		a := r[in.A+l] + uint64(in.Off)
		b := win.at(l, a, 4)
		if b == nil {
			if b = w.slowBytes(l, in.Space, a, 4, true); b == nil {
				return false
			}
			win = w.window(in.Space, true)
		}
		binary.LittleEndian.PutUint32(b, uint32(r[in.B+l]))
	}
	return true
}

// execStV4x32 stores a .v4 of 32-bit values to .global or .shared.
func execStV4x32(w *Warp, in *Inst) Status {
	r := w.R
	v0, v1, v2, v3 := in.V[0], in.V[1], in.V[2], in.V[3]
	if v0 < 0 || v1 < 0 || v2 < 0 || v3 < 0 {
		return execStVec(w, in)
	}
	addr := lanes(r, in.A)
	if win, ok := w.warpWindow(in.Space, true, addr, uint64(in.Off), 16); ok {
		p, rel := win.start(), win.base-uint64(in.Off)
		x, y, z, u := lanes(r, v0), lanes(r, v1), lanes(r, v2), lanes(r, v3)
		if w.Exec == allLanes {
			stV4x32Lanes(p, addr, rel, x, y, z, u)
		} else {
			for m := w.Exec; m != 0; m &= m - 1 {
				l := bits.TrailingZeros32(m) & 31
				putV4x32(bytesAt16(p, addr[l]-rel), x[l], y[l], z[l], u[l])
			}
		}
	} else if !w.stV4x32Lanes(in, win) {
		return Fault
	}
	w.stats.Stored[in.Space] += 16 * uint64(bits.OnesCount32(w.Exec))
	return Continue
}

// stV4x32Lanes is execStV4x32 checking each lane; false after a fault.
func (w *Warp) stV4x32Lanes(in *Inst, win fastWindow) bool {
	r := w.R
	v0, v1, v2, v3 := in.V[0], in.V[1], in.V[2], in.V[3]
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(bits.TrailingZeros32(m))
		a := r[in.A+l] + uint64(in.Off)
		b := win.at(l, a, 16)
		if b == nil {
			if b = w.slowBytes(l, in.Space, a, 16, true); b == nil {
				return false
			}
			win = w.window(in.Space, true)
		}
		_ = b[15]
		binary.LittleEndian.PutUint32(b[0:], uint32(r[v0+l]))
		binary.LittleEndian.PutUint32(b[4:], uint32(r[v1+l]))
		binary.LittleEndian.PutUint32(b[8:], uint32(r[v2+l]))
		binary.LittleEndian.PutUint32(b[12:], uint32(r[v3+l]))
	}
	return true
}

// execLd32 loads 4 bytes (zero- or sign-extended) from .global or .shared.
func execLd32(w *Warp, in *Inst) Status {
	r := w.R
	addr := lanes(r, in.A)
	win, ok := w.warpWindow(in.Space, false, addr, uint64(in.Off), 4)
	if ok && in.D >= 0 {
		// Each lane reads its address before writing its destination, as
		// on the per-lane path, so a destination that is also the
		// address register is read first.
		p, rel, dst := win.start(), win.base-uint64(in.Off), lanes(r, in.D)
		switch signed := in.Type.Signed(); {
		case w.Exec == allLanes && !signed:
			for l := range dst {
				dst[l] = uint64(binary.LittleEndian.Uint32(bytesAt4(p, addr[l]-rel)[:]))
			}
		case w.Exec == allLanes:
			for l := range dst {
				dst[l] = uint64(int64(int32(binary.LittleEndian.Uint32(bytesAt4(p, addr[l]-rel)[:]))))
			}
		default:
			for m := w.Exec; m != 0; m &= m - 1 {
				l := bits.TrailingZeros32(m) & 31
				v := uint64(binary.LittleEndian.Uint32(bytesAt4(p, addr[l]-rel)[:]))
				if signed {
					v = uint64(int64(int32(v)))
				}
				dst[l] = v
			}
		}
	} else if !w.ld32Lanes(in, win) {
		return Fault
	}
	w.stats.Loaded[in.Space] += 4 * uint64(bits.OnesCount32(w.Exec))
	return Continue
}

// ld32Lanes is execLd32 checking each lane; false after a fault.
func (w *Warp) ld32Lanes(in *Inst, win fastWindow) bool {
	r := w.R
	signed := in.Type.Signed()
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(bits.TrailingZeros32(m))
		a := r[in.A+l] + uint64(in.Off)
		b := win.at(l, a, 4)
		if b == nil {
			if b = w.slowBytes(l, in.Space, a, 4, false); b == nil {
				return false
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
	return true
}

// execLdV4x32 loads a .v4 of unsigned or untyped 32-bit values.
func execLdV4x32(w *Warp, in *Inst) Status {
	r := w.R
	v0, v1, v2, v3 := in.V[0], in.V[1], in.V[2], in.V[3]
	if v0 < 0 || v1 < 0 || v2 < 0 || v3 < 0 || in.Type.Signed() {
		return execLdVec(w, in)
	}
	addr := lanes(r, in.A)
	if win, ok := w.warpWindow(in.Space, false, addr, uint64(in.Off), 16); ok {
		p, rel := win.start(), win.base-uint64(in.Off)
		x, y, z, u := lanes(r, v0), lanes(r, v1), lanes(r, v2), lanes(r, v3)
		if w.Exec == allLanes {
			ldV4x32Lanes(p, addr, rel, x, y, z, u)
		} else {
			for m := w.Exec; m != 0; m &= m - 1 {
				l := bits.TrailingZeros32(m) & 31
				x[l], y[l], z[l], u[l] = getV4x32(bytesAt16(p, addr[l]-rel))
			}
		}
	} else if !w.ldV4x32Lanes(in, win) {
		return Fault
	}
	w.stats.Loaded[in.Space] += 16 * uint64(bits.OnesCount32(w.Exec))
	return Continue
}

// ldV4x32Lanes is execLdV4x32 checking each lane; false after a fault.
func (w *Warp) ldV4x32Lanes(in *Inst, win fastWindow) bool {
	r := w.R
	v0, v1, v2, v3 := in.V[0], in.V[1], in.V[2], in.V[3]
	for m := w.Exec; m != 0; m &= m - 1 {
		l := int32(bits.TrailingZeros32(m))
		a := r[in.A+l] + uint64(in.Off)
		b := win.at(l, a, 16)
		if b == nil {
			if b = w.slowBytes(l, in.Space, a, 16, false); b == nil {
				return false
			}
			win = w.window(in.Space, false)
		}
		_ = b[15]
		r[v0+l] = uint64(binary.LittleEndian.Uint32(b[0:]))
		r[v1+l] = uint64(binary.LittleEndian.Uint32(b[4:]))
		r[v2+l] = uint64(binary.LittleEndian.Uint32(b[8:]))
		r[v3+l] = uint64(binary.LittleEndian.Uint32(b[12:]))
	}
	return true
}

// Bitwise and shift operations on 32-bit registers.

func execAnd32(w *Warp, in *Inst) Status {
	if d, a, b, ok := full(w, in); ok {
		andLanes(d, a, b, 0xffffffff)
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
		orLanes(d, a, b, 0xffffffff)
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
		shlLanes32(d, a, b)
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
		shrLanes32(d, a, b)
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
