package emu

import (
	"fmt"

	"github.com/ptxkit/ptxkit/internal/tensorcore"
)

// The instruction descriptor of tcgen05.mma (PTX ISA §9.7.16.4.2, the
// table for .kind::tf32, .kind::f16, .kind::f8f6f4 and .kind::i8): a
// 32-bit register value that gives the shape, the types, negation and the
// major-ness of the operands.
//
//	bits 0-1   sparsity selector      bit 2  sparsity (0 dense)
//	bit 3      saturate (.kind::i8)   bits 4-5 dtype   bit 6 reserved
//	bits 7-9   atype                  bits 10-12 btype
//	bit 13/14  negate A / B           bit 15/16 transpose A / B (MN-major, tcgen05_major.go)
//	bits 17-22 N >> 3                 bit 23 reserved
//	bits 24-28 M >> 4                 bit 29 reserved
//	bits 30-31 maximum B-reuse shift (.ws only)

const specTcIdesc = "PTX ISA §9.7.16.4.2 (tcgen05.mma instruction descriptor)"

// tcKind is the .kind of a tcgen05.mma.
type tcKind uint8

const (
	tcKindF16 tcKind = iota + 1
	tcKindTF32
	tcKindI8
	tcKindF8F6F4
	tcKindMXF8F6F4
	tcKindMXF4
	tcKindMXF4NVF4
)

func (k tcKind) String() string {
	return [...]string{"", ".kind::f16", ".kind::tf32", ".kind::i8", ".kind::f8f6f4", ".kind::mxf8f6f4", ".kind::mxf4", ".kind::mxf4nvf4"}[k]
}

// blockScaled reports whether k takes scale factors (.block_scale).
func (k tcKind) blockScaled() bool { return k >= tcKindMXF8F6F4 }

// kBytes is the bytes of K in one row of A or column of B: K is 16 f16,
// 8 tf32 or 32 8-bit elements, 32 bytes in every kind.
const tcKBytes = 32

// tcIdesc is a decoded instruction descriptor.
type tcIdesc struct {
	m, n, k        int
	out            tensorcore.Format // F32 or F16 (floating-point kinds)
	a, b           tensorcore.Format // element formats (E4M3 stands for 8-bit integers)
	negA, negB     bool
	transA, transB bool
	integer        bool    // .kind::i8: s32 accumulators
	signed         [2]bool // A, B signed (.kind::i8)
	saturate       bool
	narrow         bool              // the f8f6f4 kinds: A and B by byte layout (tcgen05_scaled.go)
	packed         bool              // .kind::mxf4 and .kind::mxf4nvf4: two E2M1 per byte
	scale          tensorcore.Format // UE8M0 or UE4M3 (block-scaled kinds)
	vec            int               // elements per scale factor (block-scaled kinds)
	sfid           [2]int            // scale factor IDs of A and B: the first byte used
	maxShift       int               // .ws: the maximum B-reuse shift (bits 30-31), in columns
}

// idescError is an instruction descriptor the manual does not allow
// (invalid) or one the emulator does not implement (unsupported).
type idescError struct {
	unsupported bool
	msg         string
}

func (e *idescError) Error() string { return e.msg }

func idescInvalid(format string, args ...any) *idescError {
	return &idescError{msg: fmt.Sprintf(format, args...)}
}

// decodeIdesc decodes v for a dense, non-.ws tcgen05.mma of kind k with
// .cta_group::1.
func decodeIdesc(k tcKind, v uint32) (*tcIdesc, error) { return decodeIdescFor(k, v, tcFormCTA1) }

// tcForm is the shape family of a tcgen05.mma: .cta_group::1, .cta_group::2
// (M = 256 across the CTA pair) or .ws (weight-stationary).
type tcForm uint8

const (
	tcFormCTA1 tcForm = iota
	tcFormPair
	tcFormWS
)

// decodeIdescFor decodes v for a dense tcgen05.mma of form f.
func decodeIdescFor(k tcKind, v uint32, f tcForm) (*tcIdesc, error) {
	pair := f == tcFormPair
	field := func(lo, n int) uint32 { return v >> lo & (1<<n - 1) }
	x := &tcIdesc{negA: field(13, 1) == 1, negB: field(14, 1) == 1,
		transA: field(15, 1) == 1, transB: field(16, 1) == 1, saturate: field(3, 1) == 1}
	switch {
	case field(2, 1) != 0:
		return nil, idescInvalid("idesc %#08x sets the sparsity bit (2) on a dense tcgen05.mma (no .sp)", v)
	case field(0, 2) != 0:
		return nil, idescInvalid("idesc %#08x sets the sparsity selector (bits 0-1) on a dense tcgen05.mma", v)
	case field(6, 1) != 0 || field(23, 1) != 0 || field(29, 1) != 0:
		return nil, idescInvalid("idesc %#08x sets a reserved bit (6, 23 or 29)", v)
	case field(30, 2) != 0 && f != tcFormWS:
		return nil, idescInvalid("idesc %#08x sets the B-reuse shift (bits 30-31), which only .ws allows", v)
	case x.saturate && k != tcKindI8:
		return nil, idescInvalid("idesc %#08x sets saturate (bit 3), which only .kind::i8 allows", v)
	}
	if f == tcFormWS && field(30, 2) != 0 {
		x.maxShift = 4 << field(30, 2)
	}
	if err := x.types(k, v, field(4, 2), field(7, 3), field(10, 3)); err != nil {
		return nil, err
	}
	x.n, x.m = int(field(17, 6))<<3, int(field(24, 5))<<4
	if err := checkPairShape(v, x.m, x.n, pair); err != nil {
		return nil, err
	}
	if f == tcFormWS {
		if err := checkWSShape(v, x.m, x.n); err != nil {
			return nil, err
		}
	} else if !pair && x.m != 64 && x.m != 128 {
		return nil, idescInvalid("idesc %#08x gives M = %d (bits 24-28 = M>>4); .cta_group::1 allows 64 and 128", v, x.m)
	}
	if x.n < 8 || x.n > 256 {
		return nil, idescInvalid("idesc %#08x gives N = %d (bits 17-22 = N>>3); N is 8 to 256 in steps of 8", v, x.n)
	}
	x.k = tcKBytes * 8 / x.a.Bits()
	if x.narrow {
		x.k = 32
	}
	if err := x.checkTranspose(v); err != nil {
		return nil, err
	}
	return x, nil
}

// types decodes dtype, atype and btype for kind k.
func (x *tcIdesc) types(k tcKind, v, d, a, b uint32) error {
	switch k {
	case tcKindF16:
		fs := map[uint32]tensorcore.Format{0: tensorcore.F16, 1: tensorcore.BF16}
		x.a, x.b = fs[a], fs[b]
		switch {
		case x.a == 0 || x.b == 0:
			return idescInvalid("idesc %#08x: .kind::f16 atype/btype (bits 7-9, 10-12) must be 0 (f16) or 1 (bf16), got %d and %d", v, a, b)
		case x.a != x.b:
			return idescInvalid("idesc %#08x: .kind::f16 mixes %s A with %s B", v, x.a, x.b)
		case d == 0 && x.a == tensorcore.BF16:
			return idescInvalid("idesc %#08x: an f16 D (dtype 0) takes f16 inputs, not bf16", v)
		case d > 1:
			return idescInvalid("idesc %#08x: .kind::f16 dtype (bits 4-5) must be 0 (f16) or 1 (f32), got %d", v, d)
		}
		x.out = map[uint32]tensorcore.Format{0: tensorcore.F16, 1: tensorcore.F32}[d]
	case tcKindTF32:
		if a != 2 || b != 2 || d != 1 {
			return idescInvalid("idesc %#08x: .kind::tf32 needs atype = btype = 2 (tf32) and dtype = 1 (f32), got %d, %d and %d", v, a, b, d)
		}
		x.a, x.b, x.out = tensorcore.TF32, tensorcore.TF32, tensorcore.F32
	case tcKindI8:
		switch {
		case a > 1 || b > 1:
			return idescInvalid("idesc %#08x: .kind::i8 atype/btype must be 0 (u8) or 1 (s8), got %d and %d", v, a, b)
		case d != 2:
			return idescInvalid("idesc %#08x: .kind::i8 dtype (bits 4-5) must be 2 (s32), got %d", v, d)
		case x.negA || x.negB:
			return idescInvalid("idesc %#08x: .kind::i8 does not negate (bits 13-14 must be 0)", v)
		}
		x.integer, x.signed = true, [2]bool{a == 1, b == 1}
		x.a, x.b, x.out = tensorcore.E4M3, tensorcore.E4M3, tensorcore.F32
	case tcKindF8F6F4:
		x.a, x.b = tcNarrowTypes[a], tcNarrowTypes[b]
		switch {
		case x.a == 0 || x.b == 0:
			return idescInvalid("idesc %#08x: .kind::f8f6f4 atype/btype (bits 7-9, 10-12) must be 0 (e4m3), 1 (e5m2), 3 (e2m3), 4 (e3m2) or 5 (e2m1), got %d and %d", v, a, b)
		case d > 1:
			return idescInvalid("idesc %#08x: .kind::f8f6f4 dtype (bits 4-5) must be 0 (f16) or 1 (f32), got %d", v, d)
		}
		x.narrow = true
		x.out = map[uint32]tensorcore.Format{0: tensorcore.F16, 1: tensorcore.F32}[d]
	}
	return nil
}

// tcNarrowTypes are the atype/btype codes of .kind::f8f6f4 and
// .kind::mxf8f6f4.
var tcNarrowTypes = map[uint32]tensorcore.Format{0: tensorcore.E4M3, 1: tensorcore.E5M2,
	3: tensorcore.E2M3, 4: tensorcore.E3M2, 5: tensorcore.E2M1}
