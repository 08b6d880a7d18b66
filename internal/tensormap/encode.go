package tensormap

import (
	"encoding/binary"
	"fmt"
)

// The 128-byte encoding (little-endian; docs/tma.md):
//
//	[0:8)     globalAddress
//	[8:12)    magic "TMAP"
//	[12]      layout version (1)
//	[13]      mode: 0 tiled, 1 im2col
//	[14]      data type      [15] rank
//	[16]      interleave     [17] swizzle
//	[18]      l2Promotion    [19] oobFill
//	[20:40)   boxDim[0..4], u32 each (tiled); im2col: [20:24)
//	          channelsPerPixel, [24:28) pixelsPerColumn, u32 each,
//	          [28:34) pixelBoxLowerCorner, [34:40) pixelBoxUpperCorner,
//	          three s16 each (W, H, D)
//	[40:45)   elementStrides[0..4], u8 each
//	[45:48)   zero
//	[48:88)   globalDim[0..4], u64 each
//	[88:120)  globalStrides[0..3], u64 each
//	[120:128) zero
//
// Dimensions at and above the rank are zero.
const (
	magic   = "TMAP"
	version = 1
)

// Encode returns the 128-byte encoding of a valid map.
func (m *Map) Encode() ([Size]byte, error) {
	var b [Size]byte
	if err := m.Validate(); err != nil {
		return b, err
	}
	le := binary.LittleEndian
	le.PutUint64(b[0:], m.Address)
	copy(b[8:12], magic)
	b[12] = version
	b[13], b[14], b[15] = byte(m.Mode), byte(m.Type), byte(m.Rank)
	if m.Mode == ModeIm2col {
		m.Im2col.encode(b[20:40])
	}
	b[16], b[17], b[18], b[19] = byte(m.Interleave), byte(m.Swizzle), byte(m.L2), byte(m.Fill)
	for i := 0; i < m.Rank; i++ {
		if m.Mode == ModeTiled {
			le.PutUint32(b[20+4*i:], m.Box[i])
		}
		b[40+i] = byte(m.ElemStrides[i])
		le.PutUint64(b[48+8*i:], m.Dims[i])
		if i > 0 {
			le.PutUint64(b[88+8*(i-1):], m.Strides[i-1])
		}
	}
	return b, nil
}

// Decode reads and validates a map that Encode wrote.
func Decode(b []byte) (*Map, error) {
	if len(b) < Size {
		return nil, fmt.Errorf("a tensor map is %d bytes, not %d", Size, len(b))
	}
	if string(b[8:12]) != magic || b[12] != version {
		return nil, fmt.Errorf("the 128 bytes are not an encoded tensor map (no %q mark of version %d at byte 8); build it with cuTensorMapEncodeTiled or ptxkit run --arg tmap:...", magic, version)
	}
	if b[13] > byte(ModeIm2col) {
		return nil, fmt.Errorf("tensor map mode %d is not supported (0 tiled, 1 im2col)", b[13])
	}
	le := binary.LittleEndian
	m := &Map{Mode: Mode(b[13]), Address: le.Uint64(b[0:]), Type: DataType(b[14]), Rank: int(b[15]),
		Interleave: Interleave(b[16]), Swizzle: Swizzle(b[17]), L2: L2Promotion(b[18]), Fill: OOBFill(b[19])}
	if m.Rank >= 1 && m.Rank <= MaxRank {
		if m.Mode == ModeIm2col {
			m.Im2col.decode(b[20:40])
		}
		for i := 0; i < m.Rank; i++ {
			if m.Mode == ModeTiled {
				m.Box[i] = le.Uint32(b[20+4*i:])
			}
			m.ElemStrides[i] = uint32(b[40+i])
			m.Dims[i] = le.Uint64(b[48+8*i:])
			if i > 0 {
				m.Strides[i-1] = le.Uint64(b[88+8*(i-1):])
			}
		}
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("invalid tensor map: %v", err)
	}
	return m, nil
}
