// Package scanner splits PTX source text into tokens.
//
// The scanner follows the lexical rules of the PTX ISA (§4 "Syntax"):
// identifiers ([a-zA-Z][a-zA-Z0-9_$]* or [_$%][a-zA-Z0-9_$]+), dotted
// directive and qualifier names (".global", ".shared::cluster",
// ".16x64b"), integer literals (decimal, hex 0x, octal 0, binary 0b, with an
// optional U suffix), floating-point literals (decimal and the exact
// 0f/0d hex forms), strings, punctuation and the operators of constant
// expressions. Comments ("//" and "/* */") are skipped.
//
// The scanner never allocates per token: token text is a substring of the
// source string given to Init.
package scanner

import (
	"strconv"
	"strings"

	"github.com/ptxkit/ptxkit/ptx/token"
)

// Kind is the class of a token.
type Kind uint8

// Token kinds.
const (
	EOF     Kind = iota
	Illegal      // a character that starts no token
	Ident        // name, %name, $name, _ (the sink)
	Dotted       // .name, with "::" parts: .shared::cluster, .16x64b
	Int          // 42, 0x2A, 052, 0b101010, 42U
	Float        // 1.5, 1e-3, 0f3F800000, 0d3FF0000000000000
	String       // "text"

	Semi     // ;
	Comma    // ,
	Colon    // :
	LBrace   // {
	RBrace   // }
	LBrack   // [
	RBrack   // ]
	LParen   // (
	RParen   // )
	At       // @
	Assign   // =
	Add      // +
	Sub      // -
	Mul      // *
	Quo      // /
	Rem      // %
	Not      // !
	Tilde    // ~
	And      // &
	Or       // |
	Xor      // ^
	Shl      // <<
	Shr      // >>
	Lss      // <
	Gtr      // >
	Leq      // <=
	Geq      // >=
	Eql      // ==
	Neq      // !=
	LAnd     // &&
	LOr      // ||
	Question // ?
)

var kindNames = [...]string{
	EOF: "end of file", Illegal: "illegal character", Ident: "identifier", Dotted: "directive or qualifier",
	Int: "integer literal", Float: "float literal", String: "string literal",
	Semi: "';'", Comma: "','", Colon: "':'", LBrace: "'{'", RBrace: "'}'", LBrack: "'['", RBrack: "']'",
	LParen: "'('", RParen: "')'", At: "'@'", Assign: "'='", Add: "'+'", Sub: "'-'", Mul: "'*'", Quo: "'/'",
	Rem: "'%'", Not: "'!'", Tilde: "'~'", And: "'&'", Or: "'|'", Xor: "'^'", Shl: "'<<'", Shr: "'>>'",
	Lss: "'<'", Gtr: "'>'", Leq: "'<='", Geq: "'>='", Eql: "'=='", Neq: "'!='", LAnd: "'&&'", LOr: "'||'",
	Question: "'?'",
}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown token"
}

// Token is one scanned token. It holds no pointers (so that copying it is
// cheap); its text is Text(src), the bytes from Pos to End (for Illegal,
// the offending character; for EOF, "").
type Token struct {
	Kind     Kind
	Pos, End token.Pos
}

// Text returns the token's text in src, the source given to Init.
func (t Token) Text(src string) string { return src[t.Pos.Offset:t.End.Offset] }

// Scanner holds the scanning state. The zero value is not usable; call Init.
type Scanner struct {
	src       string
	off       int   // next byte to read
	line      int32 // line of off
	lineStart int   // offset of the first byte of the current line
	err       func(pos token.Pos, msg string)
	comment   func(from, to token.Pos)
}

// Init prepares s to scan src. err, when not nil, is called for each
// lexical error (unterminated comment or string, malformed number).
func (s *Scanner) Init(src string, err func(pos token.Pos, msg string)) {
	*s = Scanner{src: src, line: 1, err: err}
	// Skip a UTF-8 byte order mark.
	if len(src) >= 3 && src[0] == 0xEF && src[1] == 0xBB && src[2] == 0xBF {
		s.off, s.lineStart = 3, 3
	}
}

// InitAt is Init for scanning src from at, a position at the start of a
// line that a scan of src from its beginning reaches outside any token or
// comment (a part of a module that another scanner reads up to at):
// tokens get the positions a scan of the whole of src gives them.
func (s *Scanner) InitAt(src string, at token.Pos, err func(pos token.Pos, msg string)) {
	if at.Offset <= 0 {
		s.Init(src, err)
		return
	}
	*s = Scanner{src: src, off: int(at.Offset), line: at.Line, lineStart: int(at.Offset) - int(at.Col-1), err: err}
}

// pos returns the position of byte offset off, which must be on the
// current line.
func (s *Scanner) pos(off int) token.Pos {
	return token.Pos{Offset: int32(off), Line: s.line, Col: int32(off-s.lineStart) + 1}
}

func (s *Scanner) error(off int, msg string) {
	if s.err != nil {
		s.err(s.pos(off), msg)
	}
}

func (s *Scanner) newline(off int) {
	s.line++
	s.lineStart = off + 1
}

// Byte classes for skipSpace.
const (
	notSpace = iota
	blank    // ' ', '\t', '\f', '\v'
	newline  // '\n'
	cr       // '\r': part of a CRLF line break, or a line break on its own
	slash    // '/': a comment, or an operator
)

var spaceClass = [256]uint8{' ': blank, '\t': blank, '\r': cr, '\f': blank, '\v': blank, '\n': newline, '/': slash}

// lineBreakAt reports whether src[i] ends a line: a '\n', or a '\r' not
// followed by '\n' (CR-only line endings, which ptxas accepts; the '\r'
// of a CRLF pair is white space and the '\n' ends the line).
func lineBreakAt(src string, i int) bool {
	return src[i] == '\n' || src[i] == '\r' && (i+1 == len(src) || src[i+1] != '\n')
}

// skipSpace skips white space and comments, reporting each comment to
// the comment handler.
func (s *Scanner) skipSpace() {
	src, i := s.src, s.off
	for i < len(src) {
		switch spaceClass[src[i]] {
		case notSpace:
			s.off = i
			return
		case blank:
			i++
		case cr:
			if i+1 < len(src) && src[i+1] == '\n' {
				i++
				continue
			}
			fallthrough
		case newline:
			s.line++
			i++
			s.lineStart = i
		case slash:
			if i+1 >= len(src) || (src[i+1] != '/' && src[i+1] != '*') {
				s.off = i
				return
			}
			s.off = i
			if src[i+1] == '*' {
				if !s.blockComment() {
					return
				}
				i = s.off
				continue
			}
			from := s.pos(i)
			// A line comment ends at '\n' only, also in a file with
			// CR-only line endings (as ptxas reads it).
			for i < len(src) && src[i] != '\n' {
				i++
			}
			if s.comment != nil {
				s.comment(from, s.pos(i))
			}
		}
	}
	s.off = i
}

// blockComment skips a /* */ comment; it reports false at the end of an
// unterminated one.
func (s *Scanner) blockComment() bool {
	from := s.pos(s.off)
	s.off += 2
	for s.off < len(s.src) {
		if lineBreakAt(s.src, s.off) {
			s.newline(s.off)
		} else if s.src[s.off] == '*' && s.off+1 < len(s.src) && s.src[s.off+1] == '/' {
			s.off += 2
			if s.comment != nil {
				s.comment(from, s.pos(s.off))
			}
			return true
		}
		s.off++
	}
	if s.err != nil {
		s.err(from, "comment not terminated")
	}
	return false
}

// OnComment makes the scanner call fn with the span of every comment it
// skips, in source order ("//" comments end before their newline).
func (s *Scanner) OnComment(fn func(from, to token.Pos)) { s.comment = fn }

// identChar marks the bytes that may continue an identifier.
var identChar = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '$'
	}
	return t
}()

// IsIdentChar reports whether c may continue an identifier.
func IsIdentChar(c byte) bool { return identChar[c] }

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }
func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// Classes of the first byte of a token, for Scan.
const (
	startOther  = iota // an operator, punctuation or an illegal byte
	startIdent         // a letter, '_' or '$'
	startDigit         // a number
	startPct           // '%': a register name, or the operator
	startDot           // '.': a directive or qualifier, or illegal
	startString        // '"'
)

var startClass = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		switch {
		case isLetter(byte(c)) || c == '_' || c == '$':
			t[c] = startIdent
		case isDigit(byte(c)):
			t[c] = startDigit
		}
	}
	t['%'], t['.'], t['"'] = startPct, startDot, startString
	return t
}()

// Scan returns the next token. At the end of the input it returns EOF
// tokens forever.
func (s *Scanner) Scan() Token {
	s.skipSpace()
	src, start := s.src, s.off
	if start >= len(src) {
		p := s.pos(start)
		return Token{Kind: EOF, Pos: p, End: p}
	}
	var k Kind
	switch startClass[src[start]] {
	case startIdent:
		s.off++
		s.identRest()
		k = Ident
	case startPct:
		if start+1 < len(src) && identChar[src[start+1]] {
			s.off++
			s.identRest()
			k = Ident
		} else {
			k = s.operator(src[start])
		}
	case startDot:
		if start+1 < len(src) && identChar[src[start+1]] {
			s.off++
			s.dotted()
			k = Dotted
		} else {
			k = s.operator(src[start])
		}
	case startDigit:
		k = s.number()
	case startString:
		k = s.string()
	default:
		k = s.operator(src[start])
	}
	line, col := s.line, int32(start-s.lineStart)+1
	return Token{Kind: k, Pos: token.Pos{Offset: int32(start), Line: line, Col: col},
		End: token.Pos{Offset: int32(s.off), Line: line, Col: col + int32(s.off-start)}}
}

func (s *Scanner) identRest() {
	src, i := s.src, s.off
	for i < len(src) && identChar[src[i]] {
		i++
	}
	s.off = i
}

// dotted scans the rest of ".name" with any "::part" suffixes.
func (s *Scanner) dotted() { s.off = DottedEnd(s.src, s.off) }

// DottedEnd returns the end of the directive or qualifier name whose
// first character after the '.' is at src[i]: identifier characters, with
// any "::part" suffixes (".shared::cluster", ".L2::cache_hint").
func DottedEnd(src string, i int) int {
	for {
		for i < len(src) && identChar[src[i]] {
			i++
		}
		if i+2 < len(src) && src[i] == ':' && src[i+1] == ':' && identChar[src[i+2]] {
			i += 2
			continue
		}
		return i
	}
}

// number scans an integer or floating-point literal (PTX ISA §4.5.1).
func (s *Scanner) number() Kind {
	start := s.off
	src := s.src
	if src[start] == '0' && start+1 < len(src) {
		switch src[start+1] {
		case 'x', 'X':
			s.off += 2
			s.digits(isHex, start, "hexadecimal literal has no digits")
			s.intSuffix()
			return Int
		case 'b', 'B':
			if start+2 < len(src) && (src[start+2] == '0' || src[start+2] == '1') {
				s.off += 2
				s.digits(func(c byte) bool { return c == '0' || c == '1' }, start, "")
				s.intSuffix()
				return Int
			}
		case 'f', 'F', 'd', 'D':
			n := 8
			if src[start+1] == 'd' || src[start+1] == 'D' {
				n = 16
			}
			s.off += 2
			d := s.digits(isHex, start, "hexadecimal float literal has no digits")
			if d > 0 && d != n {
				s.error(start, "hexadecimal float literal "+src[start:s.off]+" must have exactly "+strconv.Itoa(n)+" digits")
			}
			return Float
		}
	}
	for s.off < len(src) && isDigit(src[s.off]) {
		s.off++
	}
	float := false
	if s.off < len(src) && src[s.off] == '.' && !(s.off+1 < len(src) && isLetter(src[s.off+1])) {
		float = true
		s.off++
		for s.off < len(src) && isDigit(src[s.off]) {
			s.off++
		}
	}
	if s.off < len(src) && (src[s.off] == 'e' || src[s.off] == 'E') {
		j := s.off + 1
		if j < len(src) && (src[j] == '+' || src[j] == '-') {
			j++
		}
		if j < len(src) && isDigit(src[j]) {
			float = true
			s.off = j
			for s.off < len(src) && isDigit(src[s.off]) {
				s.off++
			}
		}
	}
	if float {
		return Float
	}
	s.intSuffix()
	return Int
}

func (s *Scanner) digits(ok func(byte) bool, start int, empty string) int {
	n := 0
	for s.off < len(s.src) && ok(s.src[s.off]) {
		s.off++
		n++
	}
	if n == 0 && empty != "" {
		s.error(start, empty)
	}
	return n
}

func (s *Scanner) intSuffix() {
	if s.off < len(s.src) && (s.src[s.off] == 'U' || s.src[s.off] == 'u') {
		s.off++
	}
}

func (s *Scanner) string() Kind {
	start := s.off
	s.off++
	for s.off < len(s.src) {
		switch s.src[s.off] {
		case '"':
			s.off++
			return String
		case '\\':
			s.off++
			if s.off < len(s.src) && s.src[s.off] != '\n' && s.src[s.off] != '\r' {
				s.off++
			}
		case '\n', '\r':
			s.error(start, "string literal not terminated")
			return String
		default:
			s.off++
		}
	}
	s.error(start, "string literal not terminated")
	return String
}

// single gives the kind of the one-byte operators and punctuation that
// never start a two-byte operator.
var single = [256]Kind{';': Semi, ',': Comma, ':': Colon, '{': LBrace, '}': RBrace, '[': LBrack, ']': RBrack,
	'(': LParen, ')': RParen, '@': At, '+': Add, '-': Sub, '*': Mul, '/': Quo, '%': Rem, '~': Tilde,
	'^': Xor, '?': Question}

func (s *Scanner) operator(c byte) Kind {
	s.off++
	if k := single[c]; k != 0 {
		return k
	}
	next := byte(0)
	if s.off < len(s.src) {
		next = s.src[s.off]
	}
	two := func(k Kind) Kind { s.off++; return k }
	switch c {
	case '=':
		if next == '=' {
			return two(Eql)
		}
		return Assign
	case '!':
		if next == '=' {
			return two(Neq)
		}
		return Not
	case '&':
		if next == '&' {
			return two(LAnd)
		}
		return And
	case '|':
		if next == '|' {
			return two(LOr)
		}
		return Or
	case '<':
		switch next {
		case '<':
			return two(Shl)
		case '=':
			return two(Leq)
		}
		return Lss
	case '>':
		switch next {
		case '>':
			return two(Shr)
		case '=':
			return two(Geq)
		}
		return Gtr
	}
	// Keep multi-byte UTF-8 sequences together in one Illegal token.
	if c >= 0x80 {
		for s.off < len(s.src) && s.src[s.off]&0xC0 == 0x80 {
			s.off++
		}
	}
	if c == '\n' { // unreachable: skipSpace consumes newlines
		s.newline(s.off - 1)
	}
	return Illegal
}

// SkipBalanced consumes raw text up to and including the '}' that closes a
// '{' already scanned, honouring nested braces, strings and comments. It
// returns the end position. It is used for free-form bodies such as
// ".section .debug_info { ... }", and for function bodies a parse skips
// (parser.SkipBodies). At the end of the input it reports an error and
// returns false.
func (s *Scanner) SkipBalanced(open token.Pos) (token.Pos, bool) {
	// Comments of the body belong to its raw text.
	saved := s.comment
	s.comment = nil
	defer func() { s.comment = saved }()
	src := s.src
	depth := 1
	// Most bytes are none of the few that matter here: they are skipped
	// in a tight loop, and the '\n's among them counted at once from
	// counted on (lines) when the scanner's own line count is needed.
	counted := s.off
	lines := func(to int) {
		if n := strings.Count(src[counted:to], "\n"); n > 0 {
			s.line += int32(n)
			s.lineStart = counted + strings.LastIndexByte(src[counted:to], '\n') + 1
		}
		counted = to
	}
	for {
		i := skipPlain(src, s.off)
		s.off = i
		if i >= len(src) {
			lines(i)
			if s.err != nil {
				s.err(open, "'{' not closed")
			}
			return s.pos(s.off), false
		}
		switch c := src[i]; {
		case c == '{':
			depth++
			s.off++
		case c == '}':
			depth--
			s.off++
			if depth == 0 {
				lines(s.off)
				return s.pos(s.off), true
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			// A line comment ends at '\n' only, as skipSpace reads it.
			if j := strings.IndexByte(src[i:], '\n'); j >= 0 {
				s.off = i + j
			} else {
				s.off = len(src)
			}
		case c == '\r' && i+1 < len(src) && src[i+1] == '\n':
			s.off++ // white space before the '\n' that ends the line
		case c == '"' || c == '/' || c == '\r':
			// A string, a block comment or a lone '\r' line break (skipSpace
			// counts its lines), or a '/' of an expression.
			lines(i)
			if c == '"' {
				s.string()
			} else if s.skipSpace(); s.off == i {
				s.off++
			}
			counted = s.off
		}
	}
}

// skipPlain returns the offset of the first byte at or after i that
// SkipBalanced looks at (balancedStop), or len(src). It tests eight bytes
// at a time for the five it looks for.
func skipPlain(src string, i int) int {
	for ; i+8 <= len(src); i += 8 {
		b := src[i : i+8]
		w := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56 // one load
		if zeroByte(w^('{'*ones))|zeroByte(w^('}'*ones))|zeroByte(w^('"'*ones))|zeroByte(w^('/'*ones))|zeroByte(w^('\r'*ones)) != 0 {
			break
		}
	}
	for i < len(src) && !balancedStop[src[i]] {
		i++
	}
	return i
}

// ones has a 1 in every byte.
const ones = 0x0101010101010101

// zeroByte is not 0 exactly when a byte of w is 0.
func zeroByte(w uint64) uint64 { return (w - ones) &^ w & (0x80 * ones) }

// balancedStop marks the bytes SkipBalanced looks at: braces, strings,
// '\r' and what may begin a comment.
var balancedStop = [256]bool{'{': true, '}': true, '"': true, '\r': true, '/': true}

// SkipTo moves the scanner forward to byte offset off, which the caller
// has read itself (a parser's fast path over a simple construct). The text
// skipped must not contain a newline or a comment; off must not be before
// the current offset.
func (s *Scanner) SkipTo(off int) {
	if off > s.off && off <= len(s.src) {
		s.off = off
	}
}

// EndPos returns the position just past the end of the source.
func (s *Scanner) EndPos() token.Pos {
	for s.off < len(s.src) {
		s.Scan()
	}
	return s.pos(len(s.src))
}
