// Package check validates a parsed PTX module against the instruction
// tables of package isa: qualifier legality, operand shapes and types,
// state spaces, and PTX ISA version and target gating.
//
// Where the ISA pages and NVIDIA ptxas 12.5 disagree for PTX ISA 8.5 and
// older, the checker follows ptxas (see docs/ptxas-differences.md); the
// differential test in this package compares the two per instruction.
package check

import (
	"fmt"
	"strings"

	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/token"
)

// Config overrides what the module declares.
type Config struct {
	Target string // e.g. "sm_90a"; "" uses the module's .target
	PTX    string // e.g. "8.5"; "" uses the module's .version
}

// Validate reports whether the overrides are well formed.
func (c Config) Validate() error {
	if c.Target != "" {
		if _, err := isa.ParseTarget(c.Target); err != nil {
			return err
		}
	}
	if c.PTX != "" {
		if _, err := isa.ParseVersion(c.PTX); err != nil {
			return err
		}
	}
	return nil
}

// Module validates m and returns its diagnostics, sorted by position. It
// assumes m parsed without errors; it never panics on a partial tree.
func Module(m *ast.Module, cfg Config) diag.List {
	c := &checker{file: m.Filename}
	c.header(m, cfg)
	c.globals = newScope(nil)
	for _, s := range m.Stmts {
		if d, ok := s.(*ast.VarDecl); ok {
			c.globals.declare(d, false)
		}
	}
	for _, s := range m.Stmts {
		if fn, ok := s.(*ast.Function); ok && fn.Body != nil {
			c.function(fn)
		}
	}
	c.diags.Sort()
	return c.diags
}

// checker holds the state of one Module call. Buffers are reused across
// instructions so that checking allocates little.
type checker struct {
	file    string
	version isa.Version
	target  isa.Target
	addr64  bool // the module declares .address_size 64
	globals *scope
	diags   diag.List

	fn     *scope
	entry  bool                // the current function is a kernel (.entry)
	origin map[string]isa.Qual // the space of the address a register last received (cvta, mapa); see origin.go

	names []string
	quals []isa.Qual
	probs []isa.Problem
	form  isa.Form
}

// header reads .version and .target (or the overrides) and checks that
// the target exists for the version (PTX ISA §11.1.2, Table 59).
func (c *checker) header(m *ast.Module, cfg Config) {
	var vdir, tdir *ast.Directive
	for _, s := range m.Stmts {
		d, ok := s.(*ast.Directive)
		if !ok {
			continue
		}
		switch d.Name {
		case ".version":
			if vdir == nil {
				vdir = d
			}
		case ".target":
			if tdir == nil {
				tdir = d
			}
		case ".address_size":
			c.addr64 = len(d.Args) > 0 && exprText(d.Args[0]) == "64"
		}
	}
	if vdir != nil && len(vdir.Args) > 0 {
		if v, err := isa.ParseVersion(exprText(vdir.Args[0])); err == nil {
			c.version = v
		} else {
			c.errorf(vdir.Args[0].Pos(), vdir.Args[0].End(), "version", "PTX ISA 11.1.3", "", "%v", err)
		}
	}
	if tdir != nil {
		for _, a := range tdir.Args {
			id, ok := a.(*ast.Ident)
			if !ok || !(strings.HasPrefix(id.Name, "sm_") || strings.HasPrefix(id.Name, "compute_")) {
				continue
			}
			t, err := isa.ParseTarget(id.Name)
			if err != nil {
				c.errorf(id.Pos(), id.End(), "target", "PTX ISA 11.1.2", "", "%v", err)
				continue
			}
			if t.SM > c.target.SM {
				c.target = t
			}
		}
	}
	if cfg.PTX != "" {
		if v, err := isa.ParseVersion(cfg.PTX); err == nil {
			c.version = v
		}
	}
	if cfg.Target != "" {
		if t, err := isa.ParseTarget(cfg.Target); err == nil {
			c.target = t
		}
	}
	if err := cfg.Validate(); err != nil {
		c.errorf(token.Pos{}, token.Pos{}, "config", "", "", "%v", err)
	}
	if c.target.SM != 0 && c.version != 0 {
		if err := isa.TargetValid(c.target, c.version); err != nil {
			var pos, end token.Pos
			if tdir != nil {
				pos, end = tdir.Pos(), tdir.End()
			}
			since, _ := isa.TargetSince(c.target)
			c.errorf(pos, end, "target-version", "PTX ISA 11.1.2, Table 59", "raise .version to "+since.String(), "%v", err)
		}
	}
}

func exprText(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.FloatLit:
		return e.Text
	case *ast.IntLit:
		return e.Text
	case *ast.Ident:
		return e.Name
	}
	return ""
}

func (c *checker) errorf(pos, end token.Pos, rule, spec, fix, format string, args ...any) {
	c.diags.Add(diag.Diagnostic{File: c.file, Pos: pos, End: end, Severity: diag.Error, Rule: rule,
		Message: fmt.Sprintf(format, args...), Spec: spec, Fix: fix})
}

func (c *checker) warnf(pos, end token.Pos, rule, spec, fix, format string, args ...any) {
	c.diags.Add(diag.Diagnostic{File: c.file, Pos: pos, End: end, Severity: diag.Warning, Rule: rule,
		Message: fmt.Sprintf(format, args...), Spec: spec, Fix: fix})
}

// function checks the body of fn.
func (c *checker) function(fn *ast.Function) {
	if c.fn == nil {
		c.fn = newScope(c.globals)
	}
	c.fn.reset()
	c.entry = fn.Kind == ".entry"
	for _, p := range fn.Params {
		c.fn.declareParam(p, paramInput, c.entry)
	}
	for _, p := range fn.Returns {
		c.fn.declareParam(p, paramReturn, false)
	}
	clear(c.origin)
	for _, d := range fn.Perf {
		c.perfDirective(d)
	}
	c.block(fn.Body, 0)
}

// positivePerf names the performance-tuning directives whose values ptxas
// 12.5 requires to be positive (PTX ISA 11.4: .maxnreg, .maxntid,
// .reqntid, .minnctapersm). It accepts 0 for .reqnctapercluster and
// .maxclusterrank, and so does the checker.
var positivePerf = map[string]bool{".maxnreg": true, ".maxntid": true, ".reqntid": true, ".minnctapersm": true}

// perfDirective checks the values of a performance-tuning directive.
func (c *checker) perfDirective(d *ast.Directive) {
	if !positivePerf[d.Name] {
		return
	}
	for _, a := range d.Args {
		if lit, ok := a.(*ast.IntLit); ok && lit.Value == 0 {
			c.errorf(a.Pos(), a.End(), "perf-directive-value", "PTX ISA 11.4 (performance-tuning directives)",
				"give a positive value or remove the directive", "%s needs positive values, not 0", d.Name)
		}
	}
}

func (c *checker) block(b *ast.Block, depth int) {
	for _, s := range b.Stmts {
		switch s := s.(type) {
		case *ast.VarDecl:
			c.fn.declare(s, depth > 0)
		case *ast.Block:
			c.block(s, depth+1)
		case *ast.Instruction:
			c.instruction(s)
		}
	}
}

// instruction checks one instruction against its table, or against the
// generic family gate when the tables do not describe it.
func (c *checker) instruction(in *ast.Instruction) {
	names := c.names[:0]
	for _, q := range in.Quals {
		names = append(names, q.Name)
	}
	c.names = names
	c.quals = isa.LookupQuals(names, c.quals)
	desc := isa.SelectQuals(in.Opcode, c.quals)
	if fam, parts := isa.FamilyOf(in.Opcode, names); desc == nil || (fam != nil && parts > strings.Count(desc.Name, ".")+1) {
		c.other(in, fam)
		return
	}
	f := &c.form
	probs := isa.DecodeQuals(f, desc, names, c.quals, c.probs[:0])
	probs = isa.Gate(f, c.version, c.target, probs)
	c.probs = probs
	for _, p := range probs {
		pos, end := in.OpPos, in.OpPos.Advance(in.Opcode)
		if p.Qual >= 0 && p.Qual < len(in.Quals) {
			pos, end = in.Quals[p.Qual].Pos, in.Quals[p.Qual].End()
		}
		sev := diag.Error
		if p.Warning {
			sev = diag.Warning
		}
		c.diags.Add(diag.Diagnostic{File: c.file, Pos: pos, End: end, Severity: sev, Rule: p.Rule,
			Message: p.Msg, Spec: p.Spec, Fix: p.Fix})
	}
	c.operands(in, f)
}

// other handles instructions without a table: family gates, and the
// address spaces cvta and mapa give registers (for the space warnings).
func (c *checker) other(in *ast.Instruction, g *isa.FamilyGate) {
	c.trackOrigin(in)
	c.asyncRules(in) // check/async.go: mbarrier, cp.async, red.async
	if g == nil {
		return
	}
	for _, p := range g.Check(c.version, c.target, c.probs[:0]) {
		c.errorf(in.OpPos, in.OpPos.Advance(in.Opcode), p.Rule, p.Spec, p.Fix, "%s", p.Msg)
	}
}
