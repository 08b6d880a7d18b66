// Package exec executes the SASS window stores STL and STS for one thread,
// as the seed page (004, "STL, STS: Store within Local or Shared Window")
// describes them:
//
//   - the effective address is Ra (zero-extended, 32 bits) plus the
//     sign-extended ImmS24, or the zero-extended ImmU24 when Ra is RZ;
//     Turing+ words add a uniform register and scale Ra by .X4/.X8/.X16;
//   - a misaligned address is forced down to the access size's alignment,
//     or raises an error when Config.TrapMisaligned is set;
//   - an address outside the window, or outside the memory allocated within
//     it, is an error, reported like a memory sanitizer would: with the
//     instruction, the thread and the address.
//
// Memory is reached through the small Memory interface so that the PTX
// emulator's local and shared memories can back the windows.
package exec

import (
	"fmt"

	"github.com/ptxkit/ptxkit/sass"
)

// Memory is the allocated part of a window: bytes [0, Len()) of the window
// exist; the rest of the window's address range does not.
type Memory interface {
	Len() uint64
	// WriteAt stores p at window address addr; [addr, addr+len(p)) lies in
	// [0, Len()).
	WriteAt(p []byte, addr uint64)
}

// Bytes is a Memory backed by a byte slice.
type Bytes []byte

// Len returns the allocated size.
func (b Bytes) Len() uint64 { return uint64(len(b)) }

// WriteAt copies p to addr.
func (b Bytes) WriteAt(p []byte, addr uint64) { copy(b[addr:], p) }

// WindowSize is the size of the local and shared windows: the 24-bit
// absolute address range of ImmU24.
const WindowSize = 1 << 24

// Window is a thread's local window or a CTA's shared window.
type Window struct {
	Name  string // "local" or "shared", for reports
	Limit uint64 // addresses at or above Limit are outside the window; 0 means WindowSize
	Mem   Memory
}

func (w *Window) limit() uint64 {
	if w.Limit == 0 {
		return WindowSize
	}
	return w.Limit
}

// Thread is the register state of one thread.
type Thread struct {
	ID, CTA int         // for reports
	R       [255]uint32 // R0-R254; RZ reads as 0
	UR      [255]uint32 // UR0-UR254 (UR62 up to SM90); URZ reads as 0
	P       [7]bool     // P0-P6; PT is true
	Local   *Window     // the thread's local window
	Shared  *Window     // the CTA's shared window
}

// Config selects optional behaviour.
type Config struct {
	// TrapMisaligned reports a misaligned address as an error instead of
	// forcing it to the access size's alignment (seed 004: "can optionally
	// raise an error").
	TrapMisaligned bool
}

// FaultKind classifies a Fault.
type FaultKind uint8

// Fault kinds.
const (
	Misaligned      FaultKind = iota + 1 // address not a multiple of the access size (TrapMisaligned)
	OutsideWindow                        // address beyond the window
	OutsideAlloc                         // inside the window, beyond its allocated memory
	InvalidEncoding                      // reserved size value or an op this package does not execute
)

var faultNames = [...]string{Misaligned: "misaligned address", OutsideWindow: "address outside the window", OutsideAlloc: "address outside allocated memory", InvalidEncoding: "invalid instruction"}

// Fault is a sanitizer-style report of a failed store.
type Fault struct {
	Kind        FaultKind
	Text        string // the instruction, as nvdisasm prints it
	Thread, CTA int
	Window      string
	Addr        uint64 // effective address (before forced alignment)
	Size        int    // access size in bytes
	Alloc       uint64 // allocated bytes in the window
}

func (f *Fault) Error() string {
	return fmt.Sprintf("invalid %s write of size %d: %s: address 0x%x (window %s, 0x%x bytes allocated) at %q by thread %d in CTA %d",
		f.Window, f.Size, faultNames[f.Kind], f.Addr, f.Window, f.Alloc, f.Text, f.Thread, f.CTA)
}

// Exec executes the store in for thread t. A false guard predicate makes it
// a no-op. On a fault nothing is written.
func Exec(in sass.Inst, arch sass.Arch, t *Thread, cfg Config) error {
	if t.pred(in.Pred) == in.PredNeg {
		return nil
	}
	var w *Window
	switch in.Op {
	case sass.STL:
		w = t.Local
	case sass.STS:
		w = t.Shared
	}
	size := in.Size.Bytes()
	fault := func(k FaultKind, addr uint64, win string, alloc uint64) error {
		return &Fault{Kind: k, Text: in.Text(arch), Thread: t.ID, CTA: t.CTA, Window: win, Addr: addr, Size: size, Alloc: alloc}
	}
	if w == nil || in.Size == sass.Size7 {
		return fault(InvalidEncoding, 0, windowName(in.Op), 0)
	}
	addr, ok := EffectiveAddress(in, t)
	alloc := w.Mem.Len()
	if !ok || addr+uint64(size) > w.limit() {
		return fault(OutsideWindow, addr, w.Name, alloc)
	}
	if addr%uint64(size) != 0 {
		if cfg.TrapMisaligned {
			return fault(Misaligned, addr, w.Name, alloc)
		}
	}
	aligned := addr &^ uint64(size-1)
	if aligned+uint64(size) > alloc {
		return fault(OutsideAlloc, addr, w.Name, alloc)
	}
	w.Mem.WriteAt(t.data(in), aligned)
	return nil
}

func windowName(op sass.Op) string {
	if op == sass.STL {
		return "local"
	}
	if op == sass.STS {
		return "shared"
	}
	return op.String()
}

// EffectiveAddress returns the window address of in for thread t (seed
// 004): with .E the base is the register pair {Ra+1, Ra} (no STS/STL
// encoding has .E; an Inst built by hand may). ok is false when the sum is
// negative or does not fit the address width (32 bits, 64 with .E).
func EffectiveAddress(in sass.Inst, t *Thread) (addr uint64, ok bool) {
	if in.Ra == sass.RZ && !in.UR {
		return uint64(in.Off) & (WindowSize - 1), true // ImmU24, zero-extended
	}
	sum := int64(t.reg(in.Ra))
	if in.E && in.Ra != sass.RZ && int(in.Ra)+1 < sass.RZ {
		sum |= int64(t.R[in.Ra+1]) << 32 // {Ra+1, Ra}
	}
	if in.Scale != 0 {
		sum <<= 1 + in.Scale // .X4, .X8, .X16
	}
	if in.UR && in.URc != sass.URZ {
		sum += int64(t.UR[in.URc])
	}
	sum += in.Off
	return uint64(sum), sum >= 0 && (in.E || sum < 1<<32)
}

func (t *Thread) reg(r uint8) uint32 {
	if r == sass.RZ {
		return 0
	}
	return t.R[r]
}

func (t *Thread) pred(p uint8) bool {
	if p == sass.PT {
		return true
	}
	return t.P[p]
}

// data returns the bytes stored: the low bytes of Rb for 8/16-bit stores,
// Rb..Rb+n-1 little-endian for 32/64/128-bit ones (RZ supplies zeros).
func (t *Thread) data(in sass.Inst) []byte {
	size := in.Size.Bytes()
	b := make([]byte, 0, 16)
	for i := 0; i < (size+3)/4; i++ {
		v := uint32(0)
		if in.Rb != sass.RZ && int(in.Rb)+i < sass.RZ {
			v = t.R[int(in.Rb)+i]
		}
		b = append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
	}
	return b[:size]
}
