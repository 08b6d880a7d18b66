// Package fatbin reads NVIDIA fatbinaries: the containers nvcc embeds in
// host programs (the .nv_fatbin section, reached at run time through the
// wrapper passed to __cudaRegisterFatBinary) that hold a kernel module as
// PTX text and as cubins for several GPUs. It owns the container layout,
// entry selection and the decompression of compressed entries (LZ4 blocks
// and zlib; ZSTD entries are recognised and reported as unsupported).
// Corrupt input is an error that names the offset, never a panic.
package fatbin

import (
	"bytes"
	"compress/zlib"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Magic numbers of the containers.
const (
	// Magic starts a fatbinary: a 16-byte header then its entries.
	Magic = 0xBA55ED50
	// WrapperMagic starts the wrapper nvcc passes to
	// __cudaRegisterFatBinary (magic, version, pointer to the fatbinary).
	WrapperMagic = 0x466243B1
	elfMagic     = 0x464C457F
)

// Kind is what an entry holds.
type Kind uint16

const (
	KindPTX Kind = 1 // PTX text
	KindELF Kind = 2 // a cubin (ELF)
)

func (k Kind) String() string {
	switch k {
	case KindPTX:
		return "PTX"
	case KindELF:
		return "cubin"
	}
	return fmt.Sprintf("kind %d", uint16(k))
}

// Entry flags.
const (
	flag64Bit      = 0x1
	flagZlib       = 0x1000
	flagLZ4        = 0x2000
	compressedMask = flagZlib | flagLZ4
)

// maxPayload bounds an entry's decompressed size (256 MiB).
const maxPayload = 256 << 20

const (
	headerSize      = 16 // fatbinary header
	entryHeaderMin  = 64 // smallest entry header
	entryFlagsOff   = 40
	entryUncompOff  = 56
	entryPayloadOff = 16
)

// Entry is one file of a fatbinary.
type Entry struct {
	Kind       Kind
	SM         int    // the GPU it targets: 90 for sm_90 / compute_90
	PTXVersion [2]int // major, minor of a PTX entry's ISA version
	Flags      uint64
	Offset     int    // of its header in the fatbinary
	Stored     []byte // the payload as stored (compressed or not)
	Size       int    // decompressed size (len(Stored) when not compressed)
}

// Compression names the entry's compression: "", "lz4" or "zlib".
func (e *Entry) Compression() string {
	switch {
	case e.Flags&flagLZ4 != 0:
		return "lz4"
	case e.Flags&flagZlib != 0:
		return "zlib"
	}
	return ""
}

// Payload returns the entry's contents, decompressed. A PTX entry's text
// comes without its trailing NUL bytes.
func (e *Entry) Payload() ([]byte, error) {
	var out []byte
	var err error
	switch e.Compression() {
	case "lz4":
		out, err = decodeLZ4Block(e.Stored, e.Size)
	case "zlib":
		out, err = inflate(e.Stored, e.Size)
	default:
		if len(e.Stored) >= 4 && binary.LittleEndian.Uint32(e.Stored) == 0xFD2FB528 {
			return nil, fmt.Errorf("fatbin: %s entry at offset %d is ZSTD-compressed, which is not supported; rebuild with nvcc -Xfatbin -compress-all=false or --compress-mode=default", e.Kind, e.Offset)
		}
		out = e.Stored
	}
	if err != nil {
		return nil, fmt.Errorf("fatbin: %s entry at offset %d: %v", e.Kind, e.Offset, err)
	}
	if e.Kind == KindPTX {
		out = bytes.TrimRight(out, "\x00")
	}
	return out, nil
}

func inflate(src []byte, size int) ([]byte, error) {
	r, err := zlib.NewReader(bytes.NewReader(src))
	if err != nil {
		return nil, err
	}
	out, err := io.ReadAll(io.LimitReader(r, int64(size)+1))
	if err != nil {
		return nil, err
	}
	if len(out) != size {
		return nil, fmt.Errorf("zlib: inflates to %d bytes, the entry declares %d", len(out), size)
	}
	return out, nil
}

// Fatbin is one parsed fatbinary.
type Fatbin struct {
	Entries []Entry
	Len     int // bytes it takes, header included
}

// Parse reads the fatbinary at the start of b; bytes after it are ignored
// (Fatbin.Len says where it ends).
func Parse(b []byte) (*Fatbin, error) {
	if len(b) < headerSize {
		return nil, fmt.Errorf("fatbin: %d bytes, shorter than the %d-byte header", len(b), headerSize)
	}
	if m := binary.LittleEndian.Uint32(b); m != Magic {
		return nil, fmt.Errorf("fatbin: magic %#x at offset 0, want %#x", m, uint32(Magic))
	}
	hs := int(binary.LittleEndian.Uint16(b[6:]))
	fs := binary.LittleEndian.Uint64(b[8:])
	if hs < headerSize || uint64(hs) > uint64(len(b)) || fs > uint64(len(b)-hs) {
		return nil, fmt.Errorf("fatbin: header of %d bytes declares %d bytes of entries; only %d bytes follow", hs, fs, len(b)-min(hs, len(b)))
	}
	f := &Fatbin{Len: hs + int(fs)}
	for off := hs; off < f.Len; {
		e, next, err := parseEntry(b[:f.Len], off)
		if err != nil {
			return nil, err
		}
		f.Entries = append(f.Entries, e)
		off = next
	}
	return f, nil
}

// parseEntry reads the entry whose header starts at off and returns the
// offset of the next one.
func parseEntry(b []byte, off int) (Entry, int, error) {
	if len(b)-off < entryHeaderMin {
		return Entry{}, 0, fmt.Errorf("fatbin: entry header at offset %d is cut short (%d bytes left)", off, len(b)-off)
	}
	h := b[off:]
	hs := int(binary.LittleEndian.Uint32(h[4:]))
	padded := binary.LittleEndian.Uint64(h[8:])
	if hs < entryHeaderMin || hs > len(h) || padded > uint64(len(h)-hs) {
		return Entry{}, 0, fmt.Errorf("fatbin: entry at offset %d: header of %d bytes and payload of %d bytes overrun the fatbinary (%d bytes left)", off, hs, padded, len(h))
	}
	e := Entry{
		Kind:   Kind(binary.LittleEndian.Uint16(h)),
		SM:     int(binary.LittleEndian.Uint32(h[28:])),
		Flags:  binary.LittleEndian.Uint64(h[entryFlagsOff:]),
		Offset: off,
	}
	e.PTXVersion = [2]int{int(binary.LittleEndian.Uint16(h[26:])), int(binary.LittleEndian.Uint16(h[24:]))}
	stored := padded
	if e.Flags&compressedMask != 0 {
		stored = uint64(binary.LittleEndian.Uint32(h[entryPayloadOff:]))
		size := binary.LittleEndian.Uint64(h[entryUncompOff:])
		if stored > padded {
			return Entry{}, 0, fmt.Errorf("fatbin: entry at offset %d: compressed payload of %d bytes exceeds its %d-byte slot", off, stored, padded)
		}
		if size > maxPayload {
			return Entry{}, 0, fmt.Errorf("fatbin: entry at offset %d declares %d decompressed bytes, more than %d", off, size, maxPayload)
		}
		e.Size = int(size)
	} else {
		e.Size = int(stored)
	}
	if e.Flags&compressedMask == compressedMask {
		return Entry{}, 0, fmt.Errorf("fatbin: entry at offset %d has both compression flags (%#x)", off, e.Flags)
	}
	e.Stored = h[hs : hs+int(stored)]
	return e, off + hs + int(padded), nil
}

// ParseAll reads consecutive fatbinaries (the contents of a .nv_fatbin
// section), each starting at an 8-byte boundary.
func ParseAll(b []byte) ([]*Fatbin, error) {
	var out []*Fatbin
	for off := 0; off < len(b); {
		if rest := b[off:]; len(rest) < 4 || binary.LittleEndian.Uint32(rest) != Magic {
			if allZero(rest) {
				break
			}
			return nil, fmt.Errorf("fatbin: no fatbinary header at offset %d", off)
		}
		f, err := Parse(b[off:])
		if err != nil {
			return nil, fmt.Errorf("at offset %d: %w", off, err)
		}
		out = append(out, f)
		off = (off + f.Len + 7) &^ 7
	}
	return out, nil
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// ErrNoFatbin is returned by FromELF for an ELF file without a
// .nv_fatbin section.
var ErrNoFatbin = errors.New("fatbin: the ELF file has no .nv_fatbin section")

// FromELF returns the fatbinaries of a host executable or shared library
// (its .nv_fatbin section).
func FromELF(b []byte) (fbs []*Fatbin, err error) {
	defer func() {
		if r := recover(); r != nil { // debug/elf on hostile input
			fbs, err = nil, fmt.Errorf("fatbin: malformed ELF file: %v", r)
		}
	}()
	f, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("fatbin: %v", err)
	}
	s := f.Section(".nv_fatbin")
	if s == nil || s.Type == elf.SHT_NOBITS {
		return nil, ErrNoFatbin
	}
	data, err := s.Data()
	if err != nil {
		return nil, fmt.Errorf("fatbin: reading .nv_fatbin: %v", err)
	}
	return ParseAll(data)
}

// IsELF reports whether b starts like an ELF file (a cubin).
func IsELF(b []byte) bool { return len(b) >= 4 && binary.LittleEndian.Uint32(b) == elfMagic }

// PTXFor returns the PTX entry that best serves a GPU of compute
// capability sm (90 for sm_90): the one for the highest virtual
// architecture not above sm. It returns nil when there is none.
func (f *Fatbin) PTXFor(sm int) *Entry {
	var best *Entry
	for i := range f.Entries {
		e := &f.Entries[i]
		if e.Kind == KindPTX && e.SM <= sm && (best == nil || e.SM > best.SM) {
			best = e
		}
	}
	return best
}

// Describe lists the entries, for messages: "cubin sm_90, PTX compute_90".
func (f *Fatbin) Describe() string {
	var parts []string
	for _, e := range f.Entries {
		if e.Kind == KindPTX {
			parts = append(parts, fmt.Sprintf("PTX compute_%d", e.SM))
		} else {
			parts = append(parts, fmt.Sprintf("%s sm_%d", e.Kind, e.SM))
		}
	}
	if len(parts) == 0 {
		return "no entries"
	}
	return joinComma(parts)
}

func joinComma(s []string) string {
	var b bytes.Buffer
	for i, x := range s {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(x)
	}
	return b.String()
}
