package sass

import (
	"fmt"
	"strconv"
	"strings"
)

// FieldError reports an instruction field that cannot be encoded.
type FieldError struct {
	Field string // field name: "offset", "Rb", "size", ...
	Msg   string
	id    field
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

func fieldErr(f field, format string, args ...any) *FieldError {
	return &FieldError{Field: f.String(), Msg: fmt.Sprintf(format, args...), id: f}
}

// defaults holds the value of each field that a format does not encode.
var defaults = NewInst(OpInvalid)

// signedOff reports whether in's offset is signed: with a base register,
// and always in the uniform-register forms; [RZ+imm] is an unsigned
// absolute address (seed 004, ImmS24 vs ImmU24).
func (in *Inst) signedOff() bool { return in.Ra != RZ || in.UR }

// offRange returns the accepted offset range for an n-bit offset field.
func (in *Inst) offRange(n uint8) (lo, hi int64) {
	if in.signedOff() {
		return -(1 << (n - 1)), 1<<(n-1) - 1
	}
	return 0, 1<<n - 1
}

// Encode returns the instruction word of in for arch. It checks every field:
// offsets against ImmS24/ImmU24 (ImmS32/ImmU32 for the generic ST), data
// register alignment for .64 (even) and .128 (multiple of 4) unless RZ, the
// fields the format has no room for, and on Turing+ the scheduling values
// nvdisasm accepts (write barrier 7, usched_info not 16 or 28-31).
//
// For Maxwell the scheduling controls live in the bundle's control word (see
// ControlWord); Encode returns only the instruction word.
func Encode(in Inst, arch Arch) (Word, error) { return Options{}.Encode(in, arch) }

// Options relax the encoder's checks.
type Options struct {
	// AllowMisaligned accepts .64/.128 data registers that are not even or
	// not a multiple of 4. nvdisasm prints such words without complaint
	// (ENCODING.md T5); ptxas never produces them.
	AllowMisaligned bool
}

// Encode is the package-level Encode with o's checks.
func (o Options) Encode(in Inst, arch Arch) (Word, error) {
	f := lookup(arch, in.Op, in.UR)
	if f == nil && in.UR && lookup(arch, in.Op, false) != nil {
		return Word{}, fieldErr(fURc, "%s has no uniform-register form on %s", in.Op, arch)
	}
	if f == nil && !in.UR && lookup(arch, in.Op, true) != nil {
		return Word{}, fieldErr(fURc, "%s on %s is modelled only with a uniform register ([Ra+URc+imm], URZ for none)", in.Op, arch)
	}
	if f == nil || in.Op == NOP {
		return Word{}, &FieldError{Field: "opcode", id: numFields, Msg: fmt.Sprintf("%s%s is not encodable on %s", in.Op, urSuffix(in.UR), arch)}
	}
	if err := in.check(f, arch, o); err != nil {
		return Word{}, err
	}
	w := f.value
	for _, b := range f.fieldsOn(arch) {
		w.setBits(b.lo, b.n, in.encoded(b))
	}
	return w, nil
}

func urSuffix(ur bool) string {
	if ur {
		return " with a uniform register"
	}
	return ""
}

// check validates in against format f.
func (in *Inst) check(f *format, arch Arch, o Options) error {
	fields := f.fieldsOn(arch)
	for _, b := range fields {
		if b.f == fOff || b.f == fOff32 {
			if lo, hi := in.offRange(b.n); in.Off < lo || in.Off > hi {
				return fieldErr(b.f, "%s out of range [%s, %s]", hexS(in.Off), hexS(lo), hexS(hi))
			}
			continue
		}
		if b.f == fURc && in.URc != URZ && uint64(in.URc) >= 1<<b.n-1 {
			return fieldErr(b.f, "%s does not exist on %s (UR0-UR%d or URZ)", uregName(in.URc), arch, 1<<b.n-2)
		}
		if v := in.encoded(b); v >= 1<<b.n {
			return fieldErr(b.f, "value %d does not fit in %d bits", v, b.n)
		}
	}
	present := fieldSet(fields)
	for id := field(0); id < numFields; id++ {
		if present&(1<<id) == 0 && !isSchedField(id) && id != fOff && id != fOff32 && in.get(id) != defaults.get(id) {
			return fieldErr(id, "%s has no %s on %s", in.Op, id, arch)
		}
	}
	if !o.AllowMisaligned {
		if err := in.checkRegs(); err != nil {
			return err
		}
	}
	if err := in.checkForm(f, arch); err != nil {
		return err
	}
	if in.DescShown && !in.Desc {
		return fieldErr(fDescShow, "DescShown needs desc[] addressing")
	}
	if in.Scale != 0 && in.Ra == RZ && !in.UR {
		return fieldErr(fScale, "an absolute address [ImmU24] has no scale")
	}
	return nil
}

// CheckAlignment reports a .64/.128 data register that is not even / not
// a multiple of 4 (RZ excepted): ptxas always allocates aligned tuples
// (ENCODING.md §3), nvdisasm prints misaligned ones.
func (in *Inst) CheckAlignment() error { return in.checkRegs() }

// checkRegs enforces the register-tuple alignment that ptxas always
// produces (ENCODING.md §3); nvdisasm itself prints misaligned tuples.
func (in *Inst) checkRegs() error {
	if in.Rb == RZ || in.Op == NOP {
		return nil
	}
	switch n := in.Size.Regs(); {
	case n == 2 && in.Rb%2 != 0:
		return fieldErr(fRb, "R%d is not even, as a .64 store needs", in.Rb)
	case n == 4 && in.Rb%4 != 0:
		return fieldErr(fRb, "R%d is not a multiple of 4, as a .128 store needs", in.Rb)
	}
	return nil
}

// checkForm checks combinations that nvdisasm rejects or prints as garbage.
func (in *Inst) checkForm(f *format, arch Arch) error {
	s := in.Sched
	if arch.Gen() == Turing {
		if s.Wr != 7 {
			return fieldErr(fWr, "a store sets no write barrier (must be 7, got %d)", s.Wr)
		}
		u := s.Yield<<4 | s.Stall
		if u == 16 || u >= 28 {
			return fieldErr(fStall, "usched_info %d (stall %d, yield %d) is undefined", u, s.Stall, s.Yield)
		}
		// Bits [124:122] (batch_t): 6 and 7 are undefined, and a nonzero
		// value needs a nonzero usched_info (nvdisasm's opex table).
		if s.Reuse > 5 || s.Reuse != 0 && u == 0 {
			return fieldErr(fReuse, "batch value %d with usched_info %d is undefined", s.Reuse, u)
		}
	} else if s.Stall > 15 || s.Yield > 1 || s.Wr > 7 || s.Rd > 7 || s.Req > 63 || s.Reuse > 15 {
		return fieldErr(fStall, "control slot value out of range")
	}
	if has(f.fields, fRa64) && in.Desc && !in.Ra64 {
		return fieldErr(fDesc, "desc[] addressing needs a 64-bit address (Ra.64)")
	}
	return nil
}

func hexS(v int64) string {
	if v < 0 {
		return fmt.Sprintf("-0x%x", -v)
	}
	return fmt.Sprintf("0x%x", v)
}

// DecodeError reports a word that is not a store instruction.
type DecodeError struct {
	Word Word
	Msg  string
}

func (e *DecodeError) Error() string { return e.Msg }

// Decode returns the instruction in word w for arch. Reserved bits are
// ignored and register alignment is not checked, as nvdisasm does; words
// that nvdisasm rejects (Turing+ write barriers other than 7, undefined
// usched_info or batch values) are errors, and so are other instructions
// and store encodings that the table does not model. For Maxwell the schedule is
// DefaultSched; callers that have the control word set Sched from it.
func Decode(w Word, arch Arch) (Inst, error) {
	if arch.Gen() == Maxwell && w.Hi != 0 {
		return Inst{}, &DecodeError{w, "a Maxwell word has 64 bits"}
	}
	for i := range formats {
		f := &formats[i]
		if !f.on(arch) || w.and(f.mask) != f.value {
			continue
		}
		in := NewInst(f.op)
		in.UR = f.ur
		for _, b := range f.fieldsOn(arch) {
			in.set(b.f, decoded(b, w.bits(b.lo, b.n)))
		}
		in.fixOffset(f)
		if in.Ra == RZ && !in.UR {
			in.Scale = 0 // [RZ.X4+imm] is the absolute [imm]; nvdisasm drops the scale
		}
		in.DescShown = in.DescShown && in.Desc // bit 101 only matters with desc[]
		if in.Op == NOP {
			return in, nil
		}
		if u := f.unmodelled(w); u != (Word{}) {
			return Inst{}, &DecodeError{w, fmt.Sprintf("%s: bits %s are not modelled for %s", in.Op, u.Hex(arch), arch)}
		}
		if err := in.checkForm(f, arch); err != nil {
			return Inst{}, &DecodeError{w, "invalid encoding: " + err.Error()}
		}
		return in, nil
	}
	return Inst{}, &DecodeError{w, fmt.Sprintf("%s is not a store instruction (STS, STL, STG, ST, STAS) on %s", w.Hex(arch), arch)}
}

// encoded returns the value of field b of in as the word holds it: the
// zero uniform register is the field's all-ones value (63 in the 6-bit field
// up to SM90, 255 in the 8-bit one from SM100), URZ in an Inst.
func (in *Inst) encoded(b bitField) uint64 {
	if b.f == fURc && in.URc == URZ {
		return 1<<b.n - 1
	}
	return in.get(b.f)
}

// decoded is the inverse of encoded for a raw field value v.
func decoded(b bitField, v uint64) uint64 {
	if b.f == fURc && v == 1<<b.n-1 {
		return URZ
	}
	return v
}

// unmodelled returns the bits of w that f neither matches, assigns to a
// field, nor knows to be ignored (fields absent on an architecture are
// ignored there, as nvdisasm does with ?PM before SM86).
func (f *format) unmodelled(w Word) Word {
	derived()
	return Word{w.Lo &^ f.known.Lo, w.Hi &^ f.known.Hi}
}

// fixOffset sign-extends a signed offset.
func (in *Inst) fixOffset(f *format) {
	for _, b := range f.fields {
		if (b.f == fOff || b.f == fOff32) && in.signedOff() {
			sh := 64 - b.n
			in.Off = in.Off << sh >> sh
		}
	}
}

// Hex formats w in the vectors.tsv convention: 0x + 16 digits for Maxwell,
// 0x + 32 digits (hi64 then lo64) for Turing+.
func (w Word) Hex(arch Arch) string {
	if arch.Gen() == Maxwell {
		return fmt.Sprintf("0x%016x", w.Lo)
	}
	return fmt.Sprintf("0x%016x%016x", w.Hi, w.Lo)
}

func wordLayout(arch Arch) string {
	if arch.Gen() == Maxwell {
		return "one 64-bit word"
	}
	return "hi64 then lo64"
}

// ParseHex parses a word in the Hex convention ("0x" optional), with all
// its digits.
func ParseHex(s string, arch Arch) (Word, error) {
	t := strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	digits := 2 * arch.WordBytes()
	if len(t) != digits {
		// A short word is more likely a digit lost in copying than a
		// word with leading zeros, so it is not padded.
		return Word{}, fmt.Errorf("%q: %d hex digits; want %d for %s (%s)", clip(s), len(t), digits, arch, wordLayout(arch))
	}
	var w Word
	var err error
	if arch.Gen() == Maxwell {
		w.Lo, err = strconv.ParseUint(t, 16, 64)
	} else if w.Hi, err = strconv.ParseUint(t[:16], 16, 64); err == nil {
		w.Lo, err = strconv.ParseUint(t[16:], 16, 64)
	}
	if err != nil {
		return Word{}, fmt.Errorf("%q: not a hexadecimal word", clip(s))
	}
	return w, nil
}
