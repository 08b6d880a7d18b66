// Package resolve binds every name used in a PTX module to its
// declaration (PTX ISA §4.4 "Identifiers", §5.1 "State Spaces", §5.4
// "Variables", §11 "Directives").
//
// Module resolves registers, variables, parameters, labels, functions and
// call prototypes, and knows the special registers (§10) by name. It
// reports:
//
//	undeclared-register        a %name that is neither declared nor special
//	undeclared-name            an identifier operand that names nothing
//	undeclared-label           a branch target that is not a label of the function
//	undeclared-function        a call target that is not a declared function
//	duplicate-declaration      a name declared twice in one scope
//	register-out-of-range      %r10 when only %r<10> (%r0..%r9) is declared
//	register-outside-function  a register of another function
//	special-register-component a component on a scalar special register (%laneid.x)
//	vector-component           a component on a declared scalar (%r1.x)
//
// Scoping follows ptxas 12.5: a name is visible from the statement after
// its declaration to the end of its block (module-scope variables and
// functions included, so a call must follow the callee's declaration);
// labels are visible in their whole block and its nested blocks, not
// outside it.
//
// The predefined constant WARP_SZ resolves to a Constant symbol; declaring
// it is a duplicate-declaration error.
//
// The returned Info maps each use to its Symbol; the validator reads the
// declared state space and type of operands from it.
//
// A Resolver does the same work one top-level statement at a time, for a
// module read as a stream (parser.Stream); without KeepUses it keeps
// nothing of a function body once the function is resolved.
package resolve

import (
	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
)

// Rule ids of resolution diagnostics.
const (
	RuleUndeclaredRegister = "undeclared-register"
	RuleUndeclaredName     = "undeclared-name"
	RuleUndeclaredLabel    = "undeclared-label"
	RuleUndeclaredFunction = "undeclared-function"
	RuleDuplicate          = "duplicate-declaration"
	RuleRegisterRange      = "register-out-of-range"
	RuleRegisterOutside    = "register-outside-function"
	RuleSpecialComponent   = "special-register-component"
	RuleVectorComponent    = "vector-component"
)

// Kind classifies a Symbol.
type Kind uint8

// Symbol kinds.
const (
	Register   Kind = iota + 1 // declared in .reg
	Variable                   // .global, .const, .shared, .local, .tex variable
	Param                      // .param: kernel or function parameter, or a call argument slot
	Function                   // .entry or .func
	Prototype                  // a label naming a .callprototype
	Label                      // a branch target
	SpecialReg                 // a predefined special register
	Constant                   // a predefined constant: WARP_SZ
)

var kindNames = [...]string{Register: "register", Variable: "variable", Param: "parameter", Function: "function",
	Prototype: "call prototype", Label: "label", SpecialReg: "special register", Constant: "predefined constant"}

func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "unknown"
}

// Symbol is what a name refers to. One Symbol stands for one declaration
// and is shared by all uses of it; for "%r<10>" every %r0..%r9 use maps to
// the same Symbol.
type Symbol struct {
	Kind    Kind
	Decl    *ast.VarDecl  // Register, Variable, Param: the declaration of this name (an ExtraNames entry for later names on a line)
	Func    *ast.Function // Function (the definition when there is one), Prototype
	Label   *ast.Label    // Label, Prototype
	Special *Special      // SpecialReg
	Owner   *ast.Function // function whose parameters or body declare it; nil at module scope
	Value   int64         // Constant

	// For a Register, Variable or Param, what the phases that read
	// operands need of its declaration, decoded once when it is declared
	// (the validator and the emulator read these instead of the
	// declaration's spellings).
	StateSpace isa.Qual // isa.QNone for .reg and .sreg; .shared is isa.QSharedCta
	ElemType   isa.Qual // the declared type; isa.QNone when it has none
	Role       Role     // what a function's parameter or a body's .param is for
	vec        uint8    // the declared vector length (.v2, .v4, .v8) when above 1, else 0 (VecLen)

	// For a Function, what the linking rules need (PTX ISA §11.6): a
	// declaration of it is .extern; an .alias directive names it (and so
	// defines it); the first call instruction that names it (zero when
	// none).
	Extern   bool
	Aliased  bool
	CalledAt ast.Span

	defined bool // Function: Func has a body
}

// Defined reports whether a Function has a definition (a body) in the
// module.
func (s *Symbol) Defined() bool { return s.defined }

// Role tells what a declaration in a function's header or body is for
// (PTX ISA §5.1.6 Parameter State Space).
type Role uint8

// Roles.
const (
	NoRole      Role = iota // module scope, or a body's declaration other than a call slot
	KernelParam             // a parameter of a kernel (.entry)
	FuncParam               // an input parameter of a .func
	FuncReturn              // a return parameter of a .func
	CallSlot                // a .param declared in a nested block of a body: a call's argument or result
)

// Input reports whether s is an input parameter of a kernel or function
// (read-only: PTX ISA §5.1.6).
func (s *Symbol) Input() bool {
	return s.Kind == Param && (s.Role == KernelParam || s.Role == FuncParam)
}

// VecLen returns the vector length of a vector register or variable, 1
// for other declarations.
func (s *Symbol) VecLen() int {
	if s.vec > 1 {
		return int(s.vec)
	}
	return 1
}

// warpSize is the predefined identifier WARP_SZ (PTX ISA §4.4), the number
// of threads in a warp, usable as an immediate operand. ptxas rejects a
// declaration of that name.
var warpSize = &Symbol{Kind: Constant, Value: 32}

// LookupConstant returns the predefined constant called name (WARP_SZ), or
// nil.
func LookupConstant(name string) *Symbol {
	if name == "WARP_SZ" {
		return warpSize
	}
	return nil
}

// Space returns the state space of a register, variable or parameter
// (".reg", ".shared::cta", ...) or "" for other symbols. Special registers
// are in ".sreg".
func (s *Symbol) Space() string {
	switch {
	case s.Decl != nil:
		return s.Decl.Space
	case s.Special != nil:
		return ".sreg"
	}
	return ""
}

// Type returns the declared type (".b32", ".pred", ...) of a register,
// variable, parameter or special register, or "".
func (s *Symbol) Type() string {
	switch {
	case s.Decl != nil:
		return s.Decl.Type
	case s.Special != nil:
		return s.Special.Type
	}
	return ""
}

// Info is the result of resolving a module.
type Info struct {
	// Uses lists every resolved name use (*ast.Reg or *ast.Ident in an
	// operand, guard, address, index or initializer) with its symbol, in
	// source order. Unresolved names are absent. Symbol looks a use up.
	Uses []Use
	// Globals holds the module-scope variables by name.
	Globals map[string]*Symbol
	// Functions holds the module's functions by name; a definition
	// replaces an earlier declaration.
	Functions map[string]*Symbol
}

// Use is one resolved name use.
type Use struct {
	Node ast.Expr // *ast.Reg or *ast.Ident
	Sym  *Symbol
}

func (u Use) off() int32 { return u.Node.Pos().Offset }

// Symbol returns the symbol that the name use n (*ast.Reg or *ast.Ident
// of the resolved module) refers to, or nil. It takes O(log uses).
func (info *Info) Symbol(n ast.Node) *Symbol {
	if info == nil || n == nil {
		return nil
	}
	off := n.Pos().Offset
	uses := info.Uses
	i, j := 0, len(uses)
	for i < j {
		h := int(uint(i+j) >> 1)
		if uses[h].off() < off {
			i = h + 1
		} else {
			j = h
		}
	}
	for ; i < len(uses) && uses[i].off() == off; i++ {
		if uses[i].Node == n {
			return uses[i].Sym
		}
	}
	return nil
}

// Decl returns the declaration of the register, variable or parameter that
// the operand e names, or nil. For an address ("[%rd1+8]") or an indexed
// name ("arr[2]") it returns the declaration of the base.
func (info *Info) Decl(e ast.Expr) *ast.VarDecl {
	switch x := e.(type) {
	case *ast.Address:
		if x.Base == nil {
			return nil
		}
		e = x.Base
	case *ast.IndexExpr:
		e = x.X
	}
	if s := info.Symbol(e); s != nil {
		return s.Decl
	}
	return nil
}

// Module resolves the names of m. It never fails: names that cannot be
// resolved are reported and left out of Info.Uses. It is a Resolver fed
// every statement of m, keeping the uses.
func Module(m *ast.Module) (*Info, diag.List) {
	r := NewResolver(m.Filename)
	// Compiler output has about one name use per 12 bytes.
	r.info.Uses = make([]Use, 0, m.End().Offset/12)
	for _, s := range m.Stmts {
		r.Add(s)
	}
	return r.Info(), r.Diagnostics()
}
