package sass

import (
	"encoding/binary"
	"fmt"
)

// Raw binaries use nvdisasm's --binary layout: little-endian words; for
// Maxwell, 32-byte bundles "control, insn0, insn1, insn2" (ENCODING.md §2),
// for Turing+ 16-byte instructions, low 64 bits first.

// maxwellNOP pads a Maxwell bundle.
var maxwellNOP = Inst{Op: NOP, Sched: DefaultSched}

// MarshalRaw encodes insts for arch in nvdisasm's --binary layout. Maxwell
// bundles are padded with NOPs to a multiple of three instructions.
func (o Options) MarshalRaw(insts []Inst, arch Arch) ([]byte, error) {
	out := make([]byte, 0, (len(insts)+2)/3*4*8) // Maxwell: 3 words and a control word per 32 bytes; Turing: 16 bytes each
	if arch.Gen() == Turing {
		for i, in := range insts {
			w, err := o.Encode(in, arch)
			if err != nil {
				return nil, fmt.Errorf("instruction %d: %w", i, err)
			}
			out = binary.LittleEndian.AppendUint64(out, w.Lo)
			out = binary.LittleEndian.AppendUint64(out, w.Hi)
		}
		return out, nil
	}
	for i := 0; i < len(insts); i += 3 {
		var sched [3]Sched
		var words [3]uint64
		for k := 0; k < 3; k++ {
			in := maxwellNOP
			if i+k < len(insts) {
				in = insts[i+k]
			}
			sched[k] = in.Sched
			if in.Op == NOP {
				words[k] = formats[nopIndex(Maxwell)].value.Lo
				continue
			}
			w, err := o.Encode(in, arch)
			if err != nil {
				return nil, fmt.Errorf("instruction %d: %w", i+k, err)
			}
			words[k] = w.Lo
		}
		out = binary.LittleEndian.AppendUint64(out, ControlWord(sched))
		for _, w := range words {
			out = binary.LittleEndian.AppendUint64(out, w)
		}
	}
	return out, nil
}

func nopIndex(g Gen) int {
	for i, f := range formats {
		if f.gen == g && f.op == NOP {
			return i
		}
	}
	panic("no NOP format")
}

// RawWord is one instruction read from a raw binary: its byte address, its
// word and its schedule (from the control word on Maxwell).
type RawWord struct {
	Addr  int
	Word  Word
	Sched Sched
}

// UnmarshalRaw splits a raw binary into instruction words. The length must
// be a multiple of 32 bytes (Maxwell) or 16 bytes (Turing+).
func UnmarshalRaw(b []byte, arch Arch) ([]RawWord, error) {
	var out []RawWord
	if arch.Gen() == Turing {
		if len(b)%16 != 0 {
			return nil, fmt.Errorf("%d bytes is not a multiple of 16 (one %s instruction)", len(b), arch)
		}
		for i := 0; i < len(b); i += 16 {
			w := Word{binary.LittleEndian.Uint64(b[i:]), binary.LittleEndian.Uint64(b[i+8:])}
			out = append(out, RawWord{Addr: i, Word: w, Sched: DefaultSched})
		}
		return out, nil
	}
	if len(b)%32 != 0 {
		return nil, fmt.Errorf("%d bytes is not a multiple of 32 (one %s bundle)", len(b), arch)
	}
	for i := 0; i < len(b); i += 32 {
		sched := SplitControl(binary.LittleEndian.Uint64(b[i:]))
		for k := 0; k < 3; k++ {
			at := i + 8 + 8*k
			out = append(out, RawWord{Addr: at, Word: Word{Lo: binary.LittleEndian.Uint64(b[at:])}, Sched: sched[k]})
		}
	}
	return out, nil
}

// DecodeRaw decodes one raw word; on Maxwell it takes the schedule from the
// control word, on Turing+ from the word itself.
func DecodeRaw(r RawWord, arch Arch) (Inst, error) {
	in, err := Decode(r.Word, arch)
	if err == nil && arch.Gen() == Maxwell {
		in.Sched = r.Sched
	}
	return in, err
}
