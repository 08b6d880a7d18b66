package emu

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Arg is one kernel argument.
type Arg struct {
	// Value holds a scalar argument's bits, already in the parameter's type.
	Value uint64
	// Buffer, when IsBuffer is set, is the initial content of a fresh global
	// allocation whose address is passed.
	Buffer   []byte
	IsBuffer bool
	// Adopt, with IsBuffer, makes Buffer itself the allocation instead of
	// a copy of it: the run stores into it, and a large buffer is not held
	// twice.
	Adopt bool
	// Raw, when set, is copied into the parameter's bytes as written (for
	// aggregate parameters such as structs passed by value); it must not be
	// longer than the parameter.
	Raw []byte
}

// Result is the outcome of Execute.
type Result struct {
	Stats   Stats
	Report  *Report   // first sanitizer report, nil for a clean run
	Buffers []*Region // per argument: the buffer's allocation, nil for scalars
	Mem     *Memory
}

// NewMemory returns a memory holding the program's module variables with
// their initial values.
func (p *Program) NewMemory() *Memory {
	m := NewMemory()
	for _, r := range p.globals {
		c := *r
		c.Data = append([]byte(nil), r.Data...)
		m.global.add(&c)
	}
	m.global.next = p.nextGlb
	for _, r := range p.konsts {
		c := *r
		c.Data = append([]byte(nil), r.Data...)
		m.konst.add(&c)
	}
	return m
}

// MaxBufferBytes bounds the buffers of one launch's arguments together
// (1 GiB), so that the emulator's memory stays bounded whatever the
// arguments.
const MaxBufferBytes = 1 << 30

// Execute allocates the buffers of args, packs the parameter buffer and
// runs the launch.
func Execute(p *Program, cfg Config, args []Arg) (*Result, error) {
	if len(args) != len(p.Params) {
		return nil, fmt.Errorf("%w: kernel %s takes %d parameters, got %d arguments", ErrLaunch, p.Kernel, len(p.Params), len(args))
	}
	total := 0
	for _, a := range args {
		if a.IsBuffer {
			total += len(a.Buffer)
		}
	}
	if total > MaxBufferBytes {
		return nil, fmt.Errorf("%w: buffer arguments take %d bytes; at most %d (%d MiB) per launch", ErrLaunch, total, MaxBufferBytes, MaxBufferBytes>>20)
	}
	mem := p.NewMemory()
	res := &Result{Mem: mem, Buffers: make([]*Region, len(args))}
	params := make([]byte, max(p.ParamSize, 1))
	for i, a := range args {
		prm := p.Params[i]
		v := a.Value
		if a.IsBuffer {
			var r *Region
			if a.Adopt {
				r = mem.adoptGlobal(argRegionName(i), a.Buffer, 256)
			} else {
				r = mem.AllocGlobal(argRegionName(i), len(a.Buffer), 256)
				copy(r.Data, a.Buffer)
			}
			r.ArgIndex = i
			res.Buffers[i] = r
			v = r.Base
			if prm.Size < 8 {
				return nil, fmt.Errorf("%w: parameter %d (%s) is %d bytes wide and cannot hold a buffer address", ErrLaunch, i, prm.Name, prm.Size)
			}
		}
		if a.Raw != nil {
			if len(a.Raw) > prm.Size {
				return nil, fmt.Errorf("%w: %d bytes given for parameter %d (%s) of %d bytes", ErrLaunch, len(a.Raw), i, prm.Name, prm.Size)
			}
			copy(params[prm.Offset:], a.Raw)
			continue
		}
		if prm.Size > 8 {
			return nil, fmt.Errorf("%w: parameter %d (%s) is an aggregate of %d bytes; pass its bytes (hex:...)", ErrLaunch, i, prm.Name, prm.Size)
		}
		putLE(params[prm.Offset:], v, prm.Size)
	}
	mem.setParams(params[:p.ParamSize])
	st, rep, err := Run(p, mem, cfg)
	if err != nil {
		return nil, err
	}
	res.Stats, res.Report = st, rep
	return res, nil
}

// ParseScalar converts a command-line number (decimal, 0x hex, 0b, 0o, a
// float, or a 0f/0d bit pattern) to the bits of parameter type t.
func ParseScalar(s string, t Type) (uint64, error) {
	low := strings.ToLower(s)
	if t.Float() {
		if strings.HasPrefix(low, "0f") && len(low) == 10 || strings.HasPrefix(low, "0d") && len(low) == 18 {
			b, err := strconv.ParseUint(low[2:], 16, 64)
			if err != nil {
				return 0, fmt.Errorf("bad float bit pattern %q", s)
			}
			if low[1] == 'f' && t == TF64 {
				return math.Float64bits(float64(math.Float32frombits(uint32(b)))), nil
			}
			return b, nil
		}
		f, err := strconv.ParseFloat(s, 64)
		if errors.Is(err, strconv.ErrRange) && math.IsInf(f, 0) {
			return 0, fmt.Errorf("%s is out of range for %s", s, t)
		}
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return 0, fmt.Errorf("%q is not a number", s)
		}
		return floatBits(t, f, RoundNearest), nil
	}
	if v, err := strconv.ParseInt(s, 0, 64); err == nil {
		if t.Signed() && t.Bits() < 64 {
			lo, hi := int64(-1)<<uint(t.Bits()-1), int64(1)<<uint(t.Bits()-1)-1
			if v < lo || v > hi {
				return 0, fmt.Errorf("%s does not fit in %s", s, t)
			}
		} else if !t.Signed() && t.Bits() < 64 && (v < -(int64(1)<<uint(t.Bits()-1)) || uint64(v) > t.mask() && v >= 0) {
			return 0, fmt.Errorf("%s does not fit in %s", s, t)
		}
		return uint64(v) & t.mask(), nil
	}
	if v, err := strconv.ParseUint(s, 0, 64); err == nil {
		if v > t.mask() {
			return 0, fmt.Errorf("%s does not fit in %s", s, t)
		}
		return v, nil
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<63 {
		return uint64(int64(f)) & t.mask(), nil
	}
	if _, err := strconv.ParseInt(s, 0, 64); errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Errorf("%s does not fit in %s", s, t)
	}
	return 0, fmt.Errorf("%q is not an integer", s)
}

// ModuleBytes returns the bytes of module .global and .const variables.
func (p *Program) ModuleBytes() int {
	n := 0
	for _, r := range p.globals {
		n += len(r.Data)
	}
	for _, r := range p.konsts {
		n += len(r.Data)
	}
	return n
}
