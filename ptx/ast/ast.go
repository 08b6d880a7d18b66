// Package ast declares the syntax tree of a PTX module.
//
// Every node records where it starts (Pos) and where it ends (End, the
// position just past its last byte). The tree keeps the source order of
// module and function statements so that the printer can reproduce a module
// and so that tools can report positions exactly.
//
// Spellings are kept as written, with their leading dot: a state space is
// ".shared::cta", a type ".u32", a qualifier ".L2::cache_hint". Register and
// special-register names keep their '%'.
package ast

import "github.com/ptxkit/ptxkit/ptx/token"

// Node is implemented by every syntax tree node.
type Node interface {
	Pos() token.Pos // first byte of the node
	End() token.Pos // just past the last byte of the node
}

// Span is embedded in nodes to give them Pos and End.
type Span struct {
	From token.Pos
	To   token.Pos
}

func (s Span) Pos() token.Pos { return s.From }
func (s Span) End() token.Pos { return s.To }

// Module is a whole PTX file.
type Module struct {
	Span
	Filename string
	Stmts    []TopStmt  // in source order
	Comments []*Comment // in source order; nil unless the parser kept comments
}

// TopStmt is a module-level statement: *Directive, *VarDecl, *Function,
// or *BadStmt where the parser skipped text after a syntax error.
type TopStmt interface {
	Node
	topStmt()
}

// Stmt is a statement inside a function body: *Instruction, *Label,
// *VarDecl, *Block, *Directive, *BadStmt.
type Stmt interface {
	Node
	stmt()
}

// Directive is a module- or function-level directive other than a variable
// or function declaration: .version, .target, .address_size, .file, .loc,
// .section, .pragma, .extern-less callprototype labels and anything unknown.
//
// Name is the directive with its dot (".version"). Args are its arguments
// in order; for .version and .address_size they are *IntLit/*FloatLit, for
// .target they are *Ident (sm_90a, texmode_independent, debug), for .pragma
// and .file they may be *StringLit. Raw is the exact source text from Name
// up to (not including) the terminating newline or ';' when the directive
// has a free form (.section bodies are kept only in Raw).
//
// A call prototype ("p0: .callprototype (.param .b32 _) _ (.param .b64 _);")
// is a *Label followed by a Directive named ".callprototype" whose Proto
// holds the return and parameter declarations (Proto.Kind is
// ".callprototype", Proto.Name the "_" placeholder, Proto.Body nil).
type Directive struct {
	Span
	Name  string
	Args  []Expr
	Raw   string
	Proto *Function // for .callprototype only
}

// VarDecl declares a variable, a parameter or registers.
//
//	.visible .global .align 8 .v2 .u32 arr[4][2] = {{1,2},{3,4},...};
//	.reg .b32 %r<10>;
//	.param .u64 .ptr .global .align 16 p
type VarDecl struct {
	Span
	Linkage    []string // ".visible", ".extern", ".weak", ".common"
	Space      string   // ".reg", ".global", ".shared::cta", ".param", ...; "" only in bad input
	SpacePos   token.Pos
	Align      int64  // 0 when absent
	Vector     int    // 0, 2, 4 or 8 (.v2/.v4/.v8)
	Type       string // ".u32", ".b8", ".pred", ".f16x2", ".b128", ...
	TypePos    token.Pos
	Attrs      []string // other attributes in order: ".ptr", ".global" (after .ptr), ".attribute(...)" text
	Name       *Ident
	Count      int64      // N in "%r<N>"; -1 when not a parameterized declaration
	Dims       []int64    // array dimensions; -1 for "[]"
	Init       Expr       // initializer after '=', or nil
	ExtraNames []*VarDecl // further names in ".reg .b32 a, b, c;" (same attributes)
}

// Function is a .entry or .func definition or declaration.
type Function struct {
	Span
	Linkage []string // ".visible", ".extern", ".weak"
	Kind    string   // ".entry" or ".func"
	Returns []*VarDecl
	HasRet  bool // a return parameter list was written, even if empty
	Name    *Ident
	Params  []*VarDecl
	Perf    []*Directive // .maxntid, .reqntid, .minnctapersm, .maxnreg, .noreturn, .explicitcluster, ...
	Body    *Block       // nil for a declaration (prototype followed by ';')
}

// Block is a brace-enclosed statement list.
type Block struct {
	Span
	Stmts []Stmt
}

// Label is "name:" in a function body.
type Label struct {
	Span
	Name string
}

// BadStmt stands for text that could not be parsed; the parser reported an
// error for it and skipped to the next statement.
type BadStmt struct {
	Span
}

// Instruction is one PTX instruction, with an optional guard predicate.
//
//	@!%p1 st.global.v4.u32 [%rd1+16], {%r1, %r2, %r3, %r4};
type Instruction struct {
	Span
	Guard    *Guard // nil when unguarded
	Opcode   string // "st", "tcgen05", "mbarrier", "cp" ...: the text before the first '.'
	OpPos    token.Pos
	Quals    []Qual // each dotted qualifier in source order, e.g. ".async", ".shared::cluster", ".v4", ".u32"
	Operands []Expr // in source order
}

// Guard is "@%p" or "@!%p".
type Guard struct {
	Span
	Negate bool
	Reg    *Reg
}

// Qual is one dotted qualifier of an opcode, with its position.
// Name includes the leading dot and any "::" parts: ".L2::cache_hint".
type Qual struct {
	Pos  token.Pos
	Name string
}

// End returns the position just past the qualifier.
func (q Qual) End() token.Pos { return q.Pos.Advance(q.Name) }

// Expr is an operand or an initializer expression:
// *Reg, *Ident, *Sink, *IntLit, *FloatLit, *StringLit, *VectorExpr,
// *Address, *IndexExpr, *ParenList, *ParenExpr, *UnaryExpr, *BinaryExpr,
// *CallExpr, *InitList, *BadExpr.
type Expr interface {
	Node
	expr()
}

// Reg is a register or special register, possibly with a component:
// "%r1", "%tid.x" (Name "%tid", Comp "x"), "%v.y". Names without '%' that
// resolve to registers (e.g. "abcd.x" for a vector register declared as
// "abcd") are also Reg when written with a component; plain identifiers are
// *Ident and resolution decides what they name.
//
// A video instruction's operand may carry a selector instead of a
// component (PTX ISA 9.7.19, 9.7.20): "%r2.b1" (Name "%r2", Sel .b1),
// "%r3.h0", "%r1.h10", "%r4.b7654". The parser takes any 'b' or 'h'
// followed by digits as a selector; which ones an instruction allows is
// the checker's business.
type Reg struct {
	Span
	Name string   // with '%' when written so
	Comp string   // "x", "y", "z", "w", "r", "g", "b", "a" or ""
	Sel  Selector // video selector ("b0", "h1", "b3210", "h32"), or none
}

// Selector is a video operand selector (PTX ISA 9.7.19, 9.7.20) packed in
// a word, so that the register nodes of every operand stay small: bits
// 0-2 hold the number of digits (1 to 4), bit 3 is set for 'h' ('b'
// otherwise), and each digit takes four bits from bit 4 on. The zero
// Selector is none.
type Selector uint32

// MakeSelector packs s (without its dot), which IsSelector accepts; it
// returns the zero Selector for any other s.
func MakeSelector(s string) Selector {
	if !IsSelector(s) {
		return 0
	}
	v := Selector(len(s) - 1)
	if s[0] == 'h' {
		v |= 1 << 3
	}
	for i := 1; i < len(s); i++ {
		v |= Selector(s[i]-'0') << (4 * i)
	}
	return v
}

// String returns the selector without its dot ("b0", "h10"), or "" for
// none.
func (s Selector) String() string {
	n := s.Len()
	if n == 0 {
		return ""
	}
	var b [5]byte
	b[0] = 'b'
	if s&(1<<3) != 0 {
		b[0] = 'h'
	}
	for i := 1; i < n; i++ {
		b[i] = '0' + byte(s>>(4*i)&15)
	}
	return string(b[:n])
}

// Len returns the length of the selector without its dot (len of its
// String), 0 for none.
func (s Selector) Len() int {
	if s == 0 {
		return 0
	}
	return 1 + int(s&7)
}

// IsSelector reports whether s (without its dot) has the shape of a video
// operand selector: 'b' or 'h' followed by one to four decimal digits
// (PTX ISA 9.7.19, 9.7.20), but not "b1024", which ptxas 12.5 reads as a
// word of its own (a type: mov.b1024 is "Unexpected instruction types"),
// so that %r.b1024 is a syntax error there ("Parsing error near
// '.b1024'").
func IsSelector(s string) bool {
	if len(s) < 2 || len(s) > 5 || s[0] != 'b' && s[0] != 'h' || s == "b1024" {
		return false
	}
	for i := 1; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// NameOf returns the name that a register (*Reg, without its component or
// selector) or identifier (*Ident) spells, and "" for any other
// expression.
func NameOf(e Expr) string {
	switch x := e.(type) {
	case *Reg:
		return x.Name
	case *Ident:
		return x.Name
	}
	return ""
}

// Ident is a name: a variable, label, function or target name.
type Ident struct {
	Span
	Name string
}

// Sink is the "_" operand.
type Sink struct {
	Span
}

// IntLit is an integer literal. Value holds its 64 bits (two's complement
// for negative literals written with a leading '-'; the '-' itself is a
// UnaryExpr). Unsigned is true for a 'U' suffix. Text is the spelling.
type IntLit struct {
	Span
	Value    uint64
	Unsigned bool
	Text     string
}

// FloatLit is a floating-point literal: decimal ("1.5", "1e-3") or the
// exact hex forms "0f3F800000" (Single) and "0d3FF0000000000000".
type FloatLit struct {
	Span
	Value  float64
	Bits   uint64 // for 0f/0d forms: the bit pattern as written
	Hex    bool   // written as 0f/0d
	Single bool   // 0f form
	Text   string
}

// StringLit is a quoted string, as in .pragma "nounroll"; Value is unquoted.
type StringLit struct {
	Span
	Value string
}

// VectorExpr is a brace-enclosed operand list: {%r1, _, %r3, %r4}.
type VectorExpr struct {
	Span
	Elems []Expr
}

// Address is a bracketed address operand:
//
//	[%rd1]  [%rd1+16]  [%rd1+-8]  [%rd1 + 0]  [sym]  [sym+4]  [100]
//
// Base is *Reg, *Ident, or nil for an absolute address. Offset is the signed
// displacement (for an absolute address, the address itself). HasOffset
// reports that an offset was written (so "[%r1+0]" keeps its "+0" meaning
// in diagnostics; the printer prints canonical "[%r1]" for a zero offset).
// Some instructions use a vector inside brackets ([%rd1, {%r1, %r2}] for
// tensor copies); those are kept in Index.
type Address struct {
	Span
	Base      Expr
	Offset    int64
	HasOffset bool
	Index     []Expr // extra comma-separated elements inside the brackets, rare
	Unified   bool   // followed by .unified (ld of a unified address, PTX ISA 9.7.9.8)
}

// IndexExpr is "sym[imm]" (an array element address).
type IndexExpr struct {
	Span
	X     Expr
	Index Expr
}

// ParenList is a parenthesized operand list, as in call's "(%r1, %r2)".
type ParenList struct {
	Span
	Elems []Expr
}

// UnaryExpr is "-x", "~x" or "!x" in constant expressions.
type UnaryExpr struct {
	Span
	Op string
	X  Expr
}

// BinaryExpr is a constant expression "x op y" (+ - * / % << >> & | ^ etc.).
type BinaryExpr struct {
	Span
	Op   string
	X, Y Expr
}

// CallExpr is "generic(sym)" or another function-like form in an initializer.
type CallExpr struct {
	Span
	Fun  string
	Args []Expr
}

// InitList is a brace-enclosed initializer list: {1, 2, {3, 4}}.
type InitList struct {
	Span
	Elems []Expr
}

// ParenExpr is a parenthesized constant expression "(x)". Operand lists in
// parentheses (call's return and argument lists) are *ParenList instead.
type ParenExpr struct {
	Span
	X Expr
}

// BadExpr stands for an operand that could not be parsed.
type BadExpr struct {
	Span
}

func (*Directive) topStmt() {}
func (*VarDecl) topStmt()   {}
func (*Function) topStmt()  {}
func (*BadStmt) topStmt()   {}

func (*Instruction) stmt() {}
func (*Label) stmt()       {}
func (*VarDecl) stmt()     {}
func (*Block) stmt()       {}
func (*Directive) stmt()   {}
func (*BadStmt) stmt()     {}

func (*Reg) expr()        {}
func (*Ident) expr()      {}
func (*Sink) expr()       {}
func (*IntLit) expr()     {}
func (*FloatLit) expr()   {}
func (*StringLit) expr()  {}
func (*VectorExpr) expr() {}
func (*Address) expr()    {}
func (*IndexExpr) expr()  {}
func (*ParenList) expr()  {}
func (*UnaryExpr) expr()  {}
func (*BinaryExpr) expr() {}
func (*CallExpr) expr()   {}
func (*InitList) expr()   {}
func (*BadExpr) expr()    {}
func (*ParenExpr) expr()  {}

// HasQual reports whether the instruction carries qualifier name (".v4").
func (in *Instruction) HasQual(name string) bool {
	for _, q := range in.Quals {
		if q.Name == name {
			return true
		}
	}
	return false
}

// FullOpcode returns the opcode with all qualifiers, as written:
// "st.global.v4.u32".
func (in *Instruction) FullOpcode() string {
	n := len(in.Opcode)
	for _, q := range in.Quals {
		n += len(q.Name)
	}
	b := make([]byte, 0, n)
	b = append(b, in.Opcode...)
	for _, q := range in.Quals {
		b = append(b, q.Name...)
	}
	return string(b)
}
