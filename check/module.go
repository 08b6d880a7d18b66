package check

import (
	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/token"
)

// Module-level rules: what ptxas 12.5 decides about the module as a whole
// (PTX ISA §11.1 module directives, §11.6 linking directives).

const (
	secModule  = "PTX ISA 11.1 (module directives)"
	secAddress = "PTX ISA 11.1.3 (.address_size)"
	secLinking = "PTX ISA 11.6 (linking directives)"
)

// funcState is what the module says of one function name: where it is
// first declared, whether it is .extern, defined (has a body) or called.
type funcState struct {
	declPos, declEnd token.Pos
	callPos, callEnd token.Pos
	extern           bool
	defined          bool
	called           bool
}

// moduleState collects the module-level facts the checker decides at the
// end (End).
type moduleState struct {
	funcs      map[string]*funcState
	order      []string    // function names in order of first appearance
	noTarget   bool        // "missing .target" was reported
	addrSize   int         // the .address_size written, 0 when none
	sawAddress bool        // an .address_size directive was read
	spare      []funcState // allocated in chunks: one allocation per 64 functions
}

func (m *moduleState) fn(name string) *funcState {
	if m.funcs == nil {
		m.funcs = map[string]*funcState{}
	}
	s := m.funcs[name]
	if s == nil {
		if len(m.spare) == cap(m.spare) {
			m.spare = make([]funcState, 0, 64)
		}
		m.spare = m.spare[:len(m.spare)+1]
		s = &m.spare[len(m.spare)-1]
		m.funcs[name] = s
		m.order = append(m.order, name)
	}
	return s
}

// requireTarget reports a module that declares no .target before its
// first variable or function: ptxas needs one whatever -arch says ("Missing
// .target directive at start of file").
func (c *checker) requireTarget(pos token.Pos) {
	if c.hdr.sawTarget || c.mod.noTarget {
		return
	}
	c.mod.noTarget = true
	c.errorf(pos, pos, "missing-target", secModule+"; PTX ISA 11.1.2 (.target)", "add a .target directive after .version, e.g. .target sm_90",
		"the module has no .target directive")
}

// addressSize records .address_size and rejects 32-bit compilation, which
// ptxas 12 no longer supports ("32-Bit compilation is no longer
// supported").
func (c *checker) addressSize(d *ast.Directive) {
	c.mod.sawAddress = true
	switch exprText(d.Args[0]) {
	case "64":
		c.mod.addrSize = 64
	case "32":
		c.mod.addrSize = 32
		c.errorf(d.Pos(), d.End(), "address-size", secAddress, "use .address_size 64 and 64-bit addresses",
			".address_size 32: ptxas 12 no longer supports 32-bit compilation")
	}
}

// narrowAddressRule returns the message for a 32-bit register used as a
// generic or .global address of a store, or "" when the module allows it.
// Without .address_size a module is 32-bit, which ptxas 12 compiles only
// while no 32-bit address appears.
func (c *checker) narrowAddressRule(reg, space string) string {
	switch {
	case c.mod.addrSize == 64:
		return "32-bit register " + reg + " used as a " + space + " address in a module with .address_size 64 (ptxas rejects 32-bit addressing)"
	case !c.mod.sawAddress:
		return "32-bit register " + reg + " used as a " + space + " address in a module without .address_size (32-bit addressing, which ptxas 12 no longer supports)"
	}
	return "" // .address_size 32 was reported once at the directive
}

// declareFunction records a function declaration or definition.
func (c *checker) declareFunction(f *ast.Function) {
	if f.Name == nil {
		return
	}
	s := c.mod.fn(f.Name.Name)
	if s.declPos.Line == 0 {
		s.declPos, s.declEnd = f.Name.Pos(), f.Name.End()
	}
	for _, l := range f.Linkage {
		if l == ".extern" {
			s.extern = true
		}
	}
	if f.Body != nil {
		s.defined = true
	}
}

// noteCall records the function a direct call names.
func (c *checker) noteCall(in *ast.Instruction) {
	first := 0
	if len(in.Operands) > 0 {
		if _, ok := in.Operands[0].(*ast.ParenList); ok {
			first = 1
		}
	}
	if first >= len(in.Operands) {
		return
	}
	id, ok := in.Operands[first].(*ast.Ident)
	if !ok {
		return
	}
	if s := c.mod.funcs[id.Name]; s != nil && !s.called {
		s.called, s.callPos, s.callEnd = true, id.Pos(), id.End()
	}
}

// end reports what only the whole module decides: functions declared but
// never defined. ptxas compiles a whole program unless told to compile
// separately (-c, Config.Separate): a declaration without .extern, or a
// call to an .extern function, needs a definition in the module
// ("Unresolved extern function").
func (c *checker) end() {
	start := token.Pos{Line: 1, Col: 1}
	if !c.hdr.sawVersion {
		c.errorf(start, start, "missing-version", secModule+"; PTX ISA 11.1.1 (.version)", "begin the module with a .version directive, e.g. .version 8.5",
			"the module has no .version directive")
	}
	c.requireTarget(start)
	if c.cfg.Separate {
		return
	}
	for _, name := range c.mod.order {
		s := c.mod.funcs[name]
		if s.defined || s.extern && !s.called || isa.IsSystemCall(name) {
			continue
		}
		pos, end, why := s.declPos, s.declEnd, "is declared but never defined in this module"
		if s.extern {
			pos, end, why = s.callPos, s.callEnd, "is .extern and never defined in this module"
		}
		c.diags.Add(diag.Diagnostic{File: c.file, Pos: pos, End: end, Severity: diag.Error, Rule: "unresolved-function",
			Message: "function " + name + " " + why + " (ptxas links a whole program: \"Unresolved extern function\")",
			Spec:    secLinking, Fix: "define the function in this module, or check it as separately compiled code (ptxkit check -c)"})
	}
}

// perfVersion reports a function directive newer than the module's
// .version (ptxas 12.5 does not know .abi_preserve: "unknown attribute").
func (c *checker) perfVersion(d *ast.Directive) {
	fd := isa.LookupFuncDirective(d.Name)
	if fd == nil || fd.PTX == 0 || c.version == 0 || c.version >= fd.PTX {
		return
	}
	v := fd.PTX
	c.errorf(d.Pos(), d.Pos().Advance(d.Name), "ptx-version", "PTX ISA 11.4 (performance-tuning directives), PTX ISA Notes",
		"raise .version to "+v.String(), "%s requires PTX ISA %s (this file declares %s)", d.Name, v, c.version)
}
