// Package tensormap owns the tensor map of the Tensor Memory Accelerator
// (PTX ISA §5.5.9, CUDA driver cuTensorMapEncodeTiled): its fields, their
// validation with cuTensorMapEncodeTiled's rules and error messages, its
// 128-byte in-memory encoding (a layout of this project's own, documented
// in docs/tma.md, since NVIDIA's is opaque; Encode and Decode are the only
// code that knows it), and the address and swizzle arithmetic of a box:
// element coordinates to global byte address, and position in the box to
// shared-memory byte offset.
package tensormap

import (
	"fmt"
	"math"
	"math/bits"
	"strings"
)

// Size is the size of an encoded tensor map (CUtensorMap), and Align its
// required alignment.
const (
	Size  = 128
	Align = 64
)

// MaxRank is the largest tensor rank.
const MaxRank = 5

// DataType is CUtensorMapDataType.
type DataType uint8

// The data types, numbered as CUtensorMapDataType.
const (
	U8 DataType = iota
	U16
	U32
	S32
	U64
	S64
	F16
	F32
	F64
	BF16
	F32FTZ
	TF32
	TF32FTZ
	numDataTypes
)

var dataTypeNames = [...]string{"u8", "u16", "u32", "s32", "u64", "s64", "f16", "f32", "f64", "bf16", "f32ftz", "tf32", "tf32ftz"}

func (t DataType) String() string {
	if t < numDataTypes {
		return dataTypeNames[t]
	}
	return fmt.Sprintf("datatype(%d)", uint8(t))
}

// ElemSize returns the size of one element in bytes.
func (t DataType) ElemSize() int {
	switch t {
	case U8:
		return 1
	case U16, F16, BF16:
		return 2
	case U64, S64, F64:
		return 8
	}
	return 4
}

// Float reports whether t is a floating-point type (NaN fill applies).
func (t DataType) Float() bool { return t >= F16 && t < numDataTypes }

// ParseDataType reads a data type name as String writes it.
func ParseDataType(s string) (DataType, error) {
	for i, n := range dataTypeNames {
		if strings.EqualFold(s, n) {
			return DataType(i), nil
		}
	}
	return 0, fmt.Errorf("unknown tensor map data type %q (want one of %s)", s, strings.Join(dataTypeNames[:], ", "))
}

// Interleave is CUtensorMapInterleave.
type Interleave uint8

// The interleave layouts.
const (
	InterleaveNone Interleave = iota
	Interleave16B
	Interleave32B
)

// Swizzle is CUtensorMapSwizzle.
type Swizzle uint8

// The swizzle modes.
const (
	SwizzleNone Swizzle = iota
	Swizzle32B
	Swizzle64B
	Swizzle128B
)

// Span returns the bytes of one swizzled row (32, 64 or 128), 0 for none.
func (s Swizzle) Span() int {
	if s == SwizzleNone || s > Swizzle128B {
		return 0
	}
	return 16 << s
}

func (s Swizzle) String() string {
	if s == SwizzleNone {
		return "none"
	}
	return fmt.Sprintf("%dB", s.Span())
}

// L2Promotion is CUtensorMapL2promotion (a cache hint without effect on
// the values moved).
type L2Promotion uint8

// The L2 promotion sizes.
const (
	L2None L2Promotion = iota
	L2Promote64B
	L2Promote128B
	L2Promote256B
)

// OOBFill is CUtensorMapFloatOOBfill.
type OOBFill uint8

// The out-of-bound fills.
const (
	FillNone              OOBFill = iota // out-of-bound elements read as zero
	FillNaNRequestZeroFMA                // out-of-bound elements read as NaN (float types)
)

// Mode is the kind of map: tiled (cuTensorMapEncodeTiled) or im2col
// (cuTensorMapEncodeIm2col, im2col.go).
type Mode uint8

// The map modes.
const (
	ModeTiled Mode = iota
	ModeIm2col
)

// Map is a tensor map: the arguments of cuTensorMapEncodeTiled, or with
// Mode ModeIm2col those of cuTensorMapEncodeIm2col (Box unused; the Im2col
// fields set). Dimension 0 is the innermost (contiguous) one.
type Map struct {
	Mode        Mode
	Im2col      Im2col
	Type        DataType
	Rank        int
	Address     uint64              // globalAddress
	Dims        [MaxRank]uint64     // globalDim, elements
	Strides     [MaxRank - 1]uint64 // globalStrides, bytes, of dimensions 1..Rank-1
	Box         [MaxRank]uint32     // boxDim, elements
	ElemStrides [MaxRank]uint32     // elementStrides
	Interleave  Interleave
	Swizzle     Swizzle
	L2          L2Promotion
	Fill        OOBFill
}

// Validate applies the rules of cuTensorMapEncodeTiled; the error says
// which argument breaks which rule.
func (m *Map) Validate() error {
	if m.Type >= numDataTypes {
		return fmt.Errorf("tensorDataType %d is not a CUtensorMapDataType", m.Type)
	}
	if m.Rank < 1 || m.Rank > MaxRank {
		return fmt.Errorf("tensorRank %d must be between 1 and %d", m.Rank, MaxRank)
	}
	if m.Interleave > Interleave32B {
		return fmt.Errorf("interleave %d is not a CUtensorMapInterleave", m.Interleave)
	}
	if m.Swizzle > Swizzle128B {
		return fmt.Errorf("swizzle %d is not a CUtensorMapSwizzle", m.Swizzle)
	}
	if m.L2 > L2Promote256B {
		return fmt.Errorf("l2Promotion %d is not a CUtensorMapL2promotion", m.L2)
	}
	if m.Fill > FillNaNRequestZeroFMA {
		return fmt.Errorf("oobFill %d is not a CUtensorMapFloatOOBfill", m.Fill)
	}
	if m.Interleave != InterleaveNone && m.Rank < 3 {
		return fmt.Errorf("tensorRank %d: an interleaved layout needs a rank of at least 3", m.Rank)
	}
	align := uint64(16)
	if m.Interleave == Interleave32B {
		align = 32
	}
	if m.Address%align != 0 {
		return fmt.Errorf("globalAddress %#x must be %d-byte aligned", m.Address, align)
	}
	for i := 0; i < m.Rank; i++ {
		if err := m.validateDim(i, align); err != nil {
			return err
		}
	}
	if err := m.validateIm2col(); err != nil {
		return err
	}
	return m.validateSwizzle()
}

func (m *Map) validateDim(i int, align uint64) error {
	if m.Dims[i] == 0 || m.Dims[i] > 1<<32 {
		return fmt.Errorf("globalDim[%d] = %d must be between 1 and 2^32", i, m.Dims[i])
	}
	if i > 0 {
		s := m.Strides[i-1]
		if s%align != 0 || s >= 1<<40 {
			return fmt.Errorf("globalStrides[%d] = %d must be a multiple of %d below 2^40", i-1, s, align)
		}
	}
	if m.Mode == ModeTiled && (m.Box[i] == 0 || m.Box[i] > 256) {
		return fmt.Errorf("boxDim[%d] = %d must be between 1 and 256", i, m.Box[i])
	}
	if m.ElemStrides[i] == 0 || m.ElemStrides[i] > 8 {
		return fmt.Errorf("elementStrides[%d] = %d must be between 1 and 8", i, m.ElemStrides[i])
	}
	return nil
}

func (m *Map) validateSwizzle() error {
	inner, what := int(m.Box[0])*m.Type.ElemSize(), "boxDim[0]"
	if m.Mode == ModeIm2col {
		inner, what = int(m.Im2col.ChannelsPerPixel)*m.Type.ElemSize(), "channelsPerPixel"
	}
	switch m.Interleave {
	case InterleaveNone:
		if inner%16 != 0 {
			return fmt.Errorf("%s * element size = %d bytes must be a multiple of 16 bytes without interleave", what, inner)
		}
		if span := m.Swizzle.Span(); span != 0 && inner > span {
			return fmt.Errorf("%s * element size = %d bytes must not exceed the %s swizzle span", what, inner, m.Swizzle)
		}
	case Interleave32B:
		if m.Swizzle != Swizzle32B {
			return fmt.Errorf("interleave 32B needs swizzle 32B, not %s", m.Swizzle)
		}
	}
	if m.Fill == FillNaNRequestZeroFMA && !m.Type.Float() {
		return fmt.Errorf("oobFill NaN_REQUEST_ZERO_FMA needs a floating-point tensorDataType, not %s", m.Type)
	}
	return nil
}

// Rows returns the number of elements the box holds along dimension i:
// boxDim[i] traversed every elementStrides[i] elements.
func (m *Map) Rows(i int) int {
	if i >= m.Rank {
		return 1
	}
	return int((m.Box[i] + m.ElemStrides[i] - 1) / m.ElemStrides[i])
}

// BoxElems returns the number of elements of a box.
func (m *Map) BoxElems() int {
	if m.Mode == ModeIm2col {
		return int(m.Im2col.PixelsPerColumn) * int(m.Im2col.ChannelsPerPixel)
	}
	n := 1
	for i := 0; i < m.Rank; i++ {
		n *= m.Rows(i)
	}
	return n
}

// BoxBytes returns the bytes of a box in shared memory: the transaction
// count a load credits to its mbarrier, out-of-bound elements included.
func (m *Map) BoxBytes() int { return m.BoxElems() * m.Type.ElemSize() }

// stride returns the byte stride of dimension i.
func (m *Map) stride(i int) uint64 {
	if i == 0 {
		return uint64(m.Type.ElemSize())
	}
	return m.Strides[i-1]
}

// Extent returns the bytes from the tensor's address to the end of its
// last element.
func (m *Map) Extent() uint64 {
	n := uint64(m.Type.ElemSize())
	for i := 0; i < m.Rank; i++ {
		hi, lo := bits.Mul64(m.Dims[i]-1, m.stride(i))
		var carry uint64
		n, carry = bits.Add64(n, lo, 0)
		if hi != 0 || carry != 0 {
			return math.MaxUint64
		}
	}
	return n
}
