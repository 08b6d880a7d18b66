package check

import (
	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/resolve"
	"github.com/ptxkit/ptxkit/ptx/token"
)

// Module-level rules: what ptxas 12.5 decides about the module as a whole
// (PTX ISA §11.1 module directives, §11.6 linking directives).

const (
	secModule  = "PTX ISA 11.1 (module directives)"
	secAddress = "PTX ISA 11.1.3 (.address_size)"
	secLinking = "PTX ISA 11.6 (linking directives)"
)

// moduleState collects the module-level facts the checker decides at the
// end (End). What the module says of each function (declared, .extern,
// defined, called) is name resolution's (resolve.Symbol).
type moduleState struct {
	noTarget   bool // "missing .target" was reported
	addrSize   int  // the .address_size written, 0 when none
	sawAddress bool // an .address_size directive was read
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
	if c.version != 0 && c.version < isa.V(2, 3) {
		c.errorf(d.Pos(), d.End(), "ptx-version", secAddress, "raise .version to 2.3 or remove .address_size",
			".address_size requires PTX ISA 2.3 (this file declares %s)", c.version)
	}
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
	for _, s := range c.functions() {
		name := s.Func.Name.Name
		called := s.CalledAt.From.Line != 0
		if s.Defined() || s.Aliased || s.Extern && !called || isa.IsSystemCall(name) {
			continue
		}
		pos, end, why := s.Func.Name.Pos(), s.Func.Name.End(), "is declared but never defined in this module"
		if s.Extern {
			pos, end, why = s.CalledAt.From, s.CalledAt.To, "is .extern and never defined in this module"
		}
		c.diags.Add(diag.Diagnostic{File: c.file, Pos: pos, End: end, Severity: diag.Error, Rule: "unresolved-function",
			Message: "function " + name + " " + why + " (ptxas links a whole program: \"Unresolved extern function\")",
			Spec:    secLinking, Fix: "define the function in this module, or check it as separately compiled code (ptxkit check -c)"})
	}
}

// functions returns the functions of the module, as name resolution
// declared them, in the order of their first declaration.
func (c *checker) functions() []*resolve.Symbol { return c.res.Functions() }

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
