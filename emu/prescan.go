package emu

import (
	"bytes"

	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/token"
)

// Prescan reads the text of a module before it is parsed and refuses the
// launch of kernel ("" for the first .entry) early when the kernel's own
// body already passes a limit of the emulator: more instructions than a
// program may have, or more register slots. Every instruction and register
// of the entry's body is part of its program, so what Prescan refuses, the
// full parse, check and decode would refuse too, after spending time and
// memory in proportion to the input (a 30 MB body took seconds and
// gigabytes). It scans the bytes once and allocates nothing that grows
// with the input; anything it does not recognise it leaves to the parser.
func Prescan(file string, src []byte, kernel string) diag.List {
	s := prescanner{src: src}
	body, ok := s.findEntry(kernel)
	if !ok {
		return nil
	}
	s.i = body
	insts, slots, at := s.countBody()
	var errs diag.List
	pos := positionOf(src, at)
	switch {
	case insts > programInstLimit:
		errs.Errorf(file, pos, pos, "emu-unsupported", "the kernel has more than %d instructions; the emulator supports at most that many", programInstLimit)
	case slots > maxRegisterSlots:
		errs.Errorf(file, pos, pos, "emu-unsupported", "too many registers (the kernel declares %d; the emulator supports %d register slots per kernel)", slots, maxRegisterSlots)
	}
	return errs
}

// prescanner walks PTX text skipping comments and strings.
type prescanner struct {
	src []byte
	i   int
}

// skipSpace moves past white space and comments.
func (s *prescanner) skipSpace() {
	for s.i < len(s.src) {
		c := s.src[s.i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			s.i++
		case c == '/' && s.i+1 < len(s.src) && s.src[s.i+1] == '/':
			if j := bytes.IndexByte(s.src[s.i:], '\n'); j >= 0 {
				s.i += j + 1
			} else {
				s.i = len(s.src)
			}
		case c == '/' && s.i+1 < len(s.src) && s.src[s.i+1] == '*':
			if j := bytes.Index(s.src[s.i+2:], []byte("*/")); j >= 0 {
				s.i += j + 4
			} else {
				s.i = len(s.src)
			}
		default:
			return
		}
	}
}

// word returns the identifier-like token at s.i ("" when there is none)
// and moves past it.
func (s *prescanner) word() []byte {
	j := s.i
	for j < len(s.src) && isWordByte(s.src[j]) {
		j++
	}
	w := s.src[s.i:j]
	s.i = j
	return w
}

func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c == '%' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// next moves past one token (a word, a string or one other byte).
func (s *prescanner) next() {
	switch c := s.src[s.i]; {
	case c == '"':
		s.i++
		for s.i < len(s.src) && s.src[s.i] != '"' && s.src[s.i] != '\n' {
			if s.src[s.i] == '\\' {
				s.i++
			}
			s.i++
		}
		s.i = min(s.i+1, len(s.src))
	case isWordByte(c):
		s.word()
	default:
		s.i++
	}
}

// findEntry returns the offset just inside the body of the first .entry
// named kernel (any name when kernel is "") that has a body.
func (s *prescanner) findEntry(kernel string) (int, bool) {
	depth := 0
	for s.skipSpace(); s.i < len(s.src); s.skipSpace() {
		switch s.src[s.i] {
		case '{':
			depth++
			s.i++
			continue
		case '}':
			depth--
			s.i++
			continue
		}
		if !isWordByte(s.src[s.i]) || depth != 0 {
			s.next()
			continue
		}
		if string(s.word()) != ".entry" {
			continue
		}
		s.skipSpace()
		name := string(s.word())
		for s.skipSpace(); s.i < len(s.src) && s.src[s.i] != '{' && s.src[s.i] != ';'; s.skipSpace() {
			s.next()
		}
		if s.i < len(s.src) && s.src[s.i] == '{' && (kernel == "" || name == kernel) {
			return s.i + 1, true
		}
	}
	return 0, false
}

// countBody counts the instructions and the register slots declared in
// the body that starts at s.i, up to its closing brace; at is the offset
// of the instruction or declaration that passed a limit.
func (s *prescanner) countBody() (insts, slots, at int) {
	depth := 1
	for s.skipSpace(); s.i < len(s.src) && depth > 0; s.skipSpace() {
		start := s.i
		switch c := s.src[s.i]; {
		case c == '{':
			depth++
			s.i++
		case c == '}':
			depth--
			s.i++
		case c == ';':
			s.i++
		case c == '.':
			switch string(s.word()) {
			case ".reg":
				slots += s.regSlots()
				if slots > maxRegisterSlots {
					return insts, slots, start
				}
			case ".loc", ".file": // directives of one line, without ';'
				s.toLineEnd()
				continue
			}
			s.toStatementEnd()
		case isWordByte(c) || c == '@':
			if c != '@' {
				s.word()
				s.skipSpace()
				if s.i < len(s.src) && s.src[s.i] == ':' { // a label
					s.i++
					continue
				}
			}
			insts++
			if insts > programInstLimit {
				return insts, slots, start
			}
			s.toStatementEnd()
		default:
			s.next()
		}
	}
	return insts, slots, 0
}

// toStatementEnd moves past the ';' that ends the statement at s.i (an
// instruction or a declaration: braces inside it are a vector operand or
// an initializer).
func (s *prescanner) toStatementEnd() {
	for s.skipSpace(); s.i < len(s.src); s.skipSpace() {
		if s.src[s.i] == ';' {
			s.i++
			return
		}
		s.next()
	}
}

// toLineEnd moves to the end of the line.
func (s *prescanner) toLineEnd() {
	if j := bytes.IndexByte(s.src[s.i:], '\n'); j >= 0 {
		s.i += j
	} else {
		s.i = len(s.src)
	}
}

// regSlots counts the slots of the names a .reg declaration at s.i
// (after ".reg") declares: N for "%r<N>", one for any other name, times
// the vector length and two for .b128.
func (s *prescanner) regSlots() int {
	per, n := 1, 0
	for s.skipSpace(); s.i < len(s.src) && s.src[s.i] != ';'; s.skipSpace() {
		switch c := s.src[s.i]; {
		case c == '.':
			switch isa.LookupQual(string(s.word())) {
			case isa.QV2, isa.QB128:
				per *= 2
			case isa.QV4:
				per *= 4
			case isa.QV8:
				per *= 8
			}
		case c == '<':
			s.i++
			s.skipSpace()
			v := 0
			for s.i < len(s.src) && s.src[s.i] >= '0' && s.src[s.i] <= '9' && v <= maxRegisterSlots {
				v = v*10 + int(s.src[s.i]-'0')
				s.i++
			}
			n += v - 1 // the name counted one already
		case isWordByte(c):
			s.word()
			n++
		default:
			s.next()
		}
	}
	return n * per
}

// positionOf returns the position of byte offset off in src.
func positionOf(src []byte, off int) token.Pos {
	line := 1 + bytes.Count(src[:off], []byte{'\n'})
	col := off + 1
	if j := bytes.LastIndexByte(src[:off], '\n'); j >= 0 {
		col = off - j
	}
	return token.Pos{Offset: int32(off), Line: int32(line), Col: int32(col)}
}
