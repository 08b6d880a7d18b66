package sass

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// SyntaxError is an error in SASS text, with its 1-based line and column
// and the instruction field it concerns.
type SyntaxError struct {
	Line, Col int
	Field     string // "opcode", "offset", "Rb", ... or "" for plain syntax
	Msg       string
}

func (e *SyntaxError) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("%d:%d: %s: %s", e.Line, e.Col, e.Field, e.Msg)
	}
	return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg)
}

// Line is one parsed instruction with its source line number.
type Line struct {
	Num  int
	Inst Inst
}

// Parse parses SASS text, one instruction per line, for arch. Blank lines
// and comments (// ..., /* ... */, # ...) are skipped. It returns the
// instructions and every error found (parsing continues at the next line,
// up to MaxErrors errors).
func Parse(src string, arch Arch) ([]Line, []*SyntaxError) { return Options{}.Parse(src, arch) }

// Parse is the package-level Parse with o's encoder checks.
func (o Options) Parse(src string, arch Arch) ([]Line, []*SyntaxError) {
	var out []Line
	var errs []*SyntaxError
	num := 0
	for text := range strings.SplitSeq(src, "\n") {
		num++
		if len(errs) == MaxErrors {
			errs = append(errs, &SyntaxError{Line: num, Col: 1,
				Msg: fmt.Sprintf("too many errors (%d); the rest of the input is not checked", MaxErrors)})
			break
		}
		in, ok, err := o.ParseLine(text, num, arch)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if ok {
			out = append(out, Line{num, in})
		}
	}
	return out, errs
}

// MaxErrors is how many errors Parse reports before it stops, so that a
// large input that is not SASS costs little time and memory.
const MaxErrors = 100

// ParseLine parses one line of SASS text. ok is false for a line without an
// instruction. The instruction is checked as Encode checks it, so that the
// errors carry the column of the offending field.
func ParseLine(text string, line int, arch Arch) (Inst, bool, *SyntaxError) {
	return Options{}.ParseLine(text, line, arch)
}

// ParseLine is the package-level ParseLine with o's encoder checks.
func (o Options) ParseLine(text string, line int, arch Arch) (in Inst, ok bool, err *SyntaxError) {
	p := &parser{s: blankComments(text), line: line, arch: arch}
	p.skipSpace()
	if p.peek() == '{' || p.peek() == '}' { // dual-issue braces
		p.i++
		p.skipSpace()
	}
	if p.eof() || p.peek() == ';' {
		return Inst{}, false, nil
	}
	defer func() {
		if r := recover(); r != nil {
			se, isSyntax := r.(*SyntaxError)
			if !isSyntax {
				panic(r)
			}
			in, ok, err = Inst{}, false, se
		}
	}()
	p.instruction()
	if _, e := o.Encode(p.in, arch); e != nil {
		fe := e.(*FieldError)
		col := p.col[fe.id]
		if fe.id == numFields || col == 0 {
			col = p.col[fOpcode]
		}
		return Inst{}, false, &SyntaxError{Line: line, Col: col, Field: fe.Field, Msg: fe.Msg}
	}
	return p.in, true, nil
}

// fOpcode indexes parser.col for the opcode position.
const fOpcode = numFields

type parser struct {
	s    string
	i    int
	line int
	arch Arch
	in   Inst
	col  [numFields + 1]int // 1-based column of each field as written
	// raZero is set when the address names RZ.
	raZero bool
}

func (p *parser) eof() bool { return p.i >= len(p.s) }

func (p *parser) peek() byte {
	if p.eof() {
		return 0
	}
	return p.s[p.i]
}

func (p *parser) skipSpace() {
	for !p.eof() && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\r') {
		p.i++
	}
}

func (p *parser) failAt(col int, f string, format string, args ...any) {
	for i, a := range args {
		if s, ok := a.(string); ok {
			args[i] = clip(s)
		}
	}
	panic(&SyntaxError{Line: p.line, Col: col, Field: f, Msg: fmt.Sprintf(format, args...)})
}

// maxQuoted bounds how much of an offending token a message repeats, so
// that a megabyte-long word does not become a megabyte-long error.
const maxQuoted = 40

// clip shortens s to maxQuoted bytes (at a rune boundary), marking the cut
// with "...".
func clip(s string) string {
	if len(s) <= maxQuoted {
		return s
	}
	n := maxQuoted
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}

func (p *parser) fail(format string, args ...any) {
	p.failAt(p.i+1, "", format, args...)
}

func (p *parser) expect(c byte) {
	p.skipSpace()
	if p.peek() != c {
		p.fail("expected %q, found %s", c, p.found())
	}
	p.i++
}

func (p *parser) found() clipped {
	if p.eof() {
		return "end of line"
	}
	return clipped(strconv.Quote(clip(p.word())))
}

// clipped is message text already shortened with clip.
type clipped string

// word returns the identifier-like text at the cursor without consuming it.
func (p *parser) word() string {
	j := p.i
	for j < len(p.s) && isWordByte(p.s[j]) {
		j++
	}
	if j == p.i && j < len(p.s) {
		_, n := utf8.DecodeRuneInString(p.s[j:]) // a whole character, not a byte of it
		j += n
	}
	return p.s[p.i:j]
}

func isWordByte(c byte) bool {
	return c == '_' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '?'
}

func (p *parser) next() (string, int) {
	p.skipSpace()
	w, col := p.word(), p.i+1
	p.i += len(w)
	return w, col
}

func (p *parser) instruction() {
	p.in.Pred = PT
	p.guard()
	op, col := p.next()
	p.col[fOpcode] = col
	parts := strings.Split(op, ".")
	o := opByName(parts[0])
	if parts[0] == "" {
		p.failAt(col, "opcode", "expected an opcode (STS, STL, STG, ST or STAS), found %s", clipped(strconv.Quote(clip(op))))
	}
	if o == OpInvalid || o == NOP {
		p.failAt(col, "opcode", "unknown opcode %q (want STS, STL, STG, ST or STAS)", parts[0])
	}
	pred, neg := p.in.Pred, p.in.PredNeg
	p.in = NewInst(o)
	p.in.Pred, p.in.PredNeg = pred, neg
	p.col[fPred] = p.col[fPredNeg]
	p.address()
	if o == STAS {
		p.in.UR = true // STAS exists only in the uniform-register form
	}
	p.expect(',')
	p.skipSpace()
	p.col[fRb] = p.i + 1
	p.in.Rb = p.reg("Rb")
	if p.skipSpace(); o == ST && p.arch.Gen() == Maxwell && p.peek() == ',' {
		p.i++ // the predicate operand; omitted when PT
		w, c := p.next()
		p.col[fPredC] = c
		p.in.PredC = p.pred(w, c)
	}
	p.annotations()
	p.modifiers(parts[1:], col+len(parts[0]))
	p.hiddenDesc()
}

// hiddenDesc completes a Turing+ STG/ST address [Ra.64+imm] that names no
// uniform register: it is the desc[] form whose register nvdisasm hides
// before SM90, and ptxas always uses DefaultDesc there.
//
// STL's desc[] form prints as [Ra+imm] too on SM80-SM89: the parser reads
// [RZ+imm] with an offset as that form (the plain form prints [imm]), and
// any other [Ra+imm] as the plain form.
func (p *parser) hiddenDesc() {
	if p.arch.Gen() != Turing || p.in.UR {
		return
	}
	switch p.in.Op {
	case STG, ST:
		if !p.in.Ra64 {
			return
		}
	case STL:
		if p.arch.SM < 80 || p.arch.SM >= 90 || !p.raZero || p.in.Off == 0 {
			return
		}
	default:
		return
	}
	p.in.UR, p.in.Desc, p.in.URc = true, true, DefaultDesc
	p.col[fDesc], p.col[fURc] = p.col[fRa], p.col[fRa]
}

func opByName(s string) Op {
	for o, n := range opNames {
		if n == s {
			return Op(o)
		}
	}
	return OpInvalid
}

func (p *parser) guard() {
	p.skipSpace()
	if p.peek() != '@' {
		return
	}
	p.col[fPredNeg] = p.i + 1
	p.i++
	if p.peek() == '!' {
		p.in.PredNeg = true
		p.i++
	}
	w, c := p.next()
	p.in.Pred = p.pred(w, c)
}

func (p *parser) pred(w string, col int) uint8 {
	if w == "PT" {
		return PT
	}
	if len(w) == 2 && w[0] == 'P' && w[1] >= '0' && w[1] <= '6' {
		return w[1] - '0'
	}
	p.failAt(col, "predicate", "bad predicate %q (want P0-P6 or PT)", w)
	return 0
}

// reg parses a general register name at the cursor: R0-R254 or RZ.
func (p *parser) reg(what string) uint8 {
	w, col := p.next()
	r, ok := parseReg(w, "R", RZ)
	if !ok {
		p.failAt(col, what, "bad register %q (want R0-R254 or RZ)", w)
	}
	return r
}

// parseReg parses prefix+number or prefix+"Z" (the zero register z).
func parseReg(w, prefix string, z uint8) (uint8, bool) {
	if !strings.HasPrefix(w, prefix) {
		return 0, false
	}
	t := w[len(prefix):]
	if t == "Z" {
		return z, true
	}
	n, err := strconv.ParseUint(t, 10, 8)
	if err != nil || uint8(n) >= z || len(t) > 1 && t[0] == '0' {
		return 0, false
	}
	return uint8(n), true
}
