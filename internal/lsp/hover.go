package lsp

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/printer"
	"github.com/ptxkit/ptxkit/ptx/resolve"
)

// hover describes the name under the cursor (its declaration and type, or
// a special register's meaning) or, elsewhere in an instruction, the
// instruction as `ptxkit explain` does, followed by the document's
// diagnostics on it.
func (s *Server) hover(params json.RawMessage) (any, *rpcError) {
	_, a, o, err := s.positionRequest(params)
	if err != nil {
		return nil, err
	}
	if t := a.targetAt(o); t != nil {
		if md := a.describeTarget(t); md != "" {
			r := a.text.rangeOf(t.from, t.to, s.enc)
			return hover{Contents: markupContent{Kind: "markdown", Value: md}, Range: &r}, nil
		}
	}
	in := a.instructionAt(o)
	if in == nil {
		return nil, nil
	}
	from, to := off(in.OpPos), off(in.OpPos)+len(in.Opcode)
	if n := len(in.Quals); n > 0 {
		to = off(in.Quals[n-1].End())
	}
	qual := -1
	for i, q := range in.Quals {
		if qf, qt := off(q.Pos), off(q.End()); qf <= o && o < qt {
			qual, from, to = i, qf, qt
		}
	}
	r := a.text.rangeOf(from, to, s.enc)
	return hover{Contents: markupContent{Kind: "markdown", Value: s.describeInstruction(a, in, qual)}, Range: &r}, nil
}

// describeInstruction is explain's text for in, checked against the
// document's .target and .version, then, when the cursor is on qualifier
// qual (-1: elsewhere), that qualifier's meaning and gate, then the
// document's diagnostics that fall on in.
func (s *Server) describeInstruction(a *analysis, in *ast.Instruction, qual int) string {
	src := strings.TrimSpace(a.text.src[off(in.OpPos):min(off(in.End()), len(a.text.src))])
	var b strings.Builder
	if s.opts.Explain != nil {
		fmt.Fprintf(&b, "```text\n%s```\n", s.opts.Explain(src, a.target, a.version))
	} else {
		fmt.Fprintf(&b, "`%s`\n\n%s\n", in.FullOpcode(), summaryOf(in))
	}
	if qual >= 0 {
		b.WriteString("\n" + a.describeQual(in, qual))
	}
	first := true
	for _, d := range a.diags {
		if d.Pos.Offset < in.Pos().Offset || d.Pos.Offset >= in.End().Offset {
			continue
		}
		if first {
			b.WriteString("\n**In this file**\n")
			first = false
		}
		fmt.Fprintf(&b, "- %s: %s `[%s]`", d.Severity, d.Message, d.Rule)
		if d.Fix != "" {
			fmt.Fprintf(&b, " (fix: %s)", d.Fix)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// summaryOf is the tables' one-line description of in.
func summaryOf(in *ast.Instruction) string {
	names := make([]string, len(in.Quals))
	for i, q := range in.Quals {
		names[i] = q.Name
	}
	if d := isa.SelectFor(in.Opcode, names); d != nil {
		return d.Summary + " (" + d.Section + ")"
	}
	var d isa.OpDecode
	if isa.DecodeOp(in.Opcode, names, isa.LookupQuals(names, nil), len(in.Operands), &d, nil); d.Form != nil {
		return d.Form.Doc() + " (" + d.Form.Section + ")\n\n`" + d.Form.Syntax() + "`"
	}
	if g, _ := isa.FamilyOf(in.Opcode, names); g != nil {
		return fmt.Sprintf("family %s (%s): PTX ISA %s, %s", g.Prefix, g.Section, g.PTX, g.Arch)
	}
	return "no description in ptxkit's tables"
}

// describeTarget is the markdown hover of a name.
func (a *analysis) describeTarget(t *target) string {
	if t.sym != nil {
		switch t.sym.Kind {
		case resolve.SpecialReg:
			return describeSpecial(t.sym.Special)
		case resolve.Constant:
			return "**predefined constant** `WARP_SZ` = " + strconv.FormatInt(t.sym.Value, 10) + " (threads in a warp, PTX ISA §4.4)"
		}
	}
	d := t.decl
	if d == nil {
		return ""
	}
	kind := d.kind.String()
	if t.sym != nil {
		kind = t.sym.Kind.String()
	}
	name := d.name
	switch {
	case t.reg != "":
		name = t.reg
	case d.decl != nil && d.decl.Count >= 0:
		name = fmt.Sprintf("%s<%d>", d.name, d.decl.Count) // the declaration of a range
	}
	var b strings.Builder
	fmt.Fprintf(&b, "**%s** `%s`", kind, name)
	if d.decl != nil {
		fmt.Fprintf(&b, ": %s\n", declDetail(d.decl))
		fmt.Fprintf(&b, "\n```ptx\n%s\n```\n", declText(d.decl))
	} else if d.kind == resolve.Function {
		fmt.Fprintf(&b, "\n\n```ptx\n%s\n```\n", headerText(d.fn))
	} else {
		b.WriteString("\n")
	}
	line := a.text.position(d.from, utf8Enc).Line + 1
	if d.fn != nil && d.kind != resolve.Function && d.fn.Name != nil {
		fmt.Fprintf(&b, "\ndeclared on line %d in `%s`\n", line, d.fn.Name.Name)
	} else {
		fmt.Fprintf(&b, "\ndeclared on line %d\n", line)
	}
	return b.String()
}

// describeSpecial is a special register's hover.
func describeSpecial(sp *resolve.Special) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**special register** `%s`: .sreg", sp.Name)
	if sp.Vector {
		fmt.Fprintf(&b, " .v4 %s, read per component (.x, .y, .z)", sp.Type)
	} else {
		b.WriteString(" " + sp.Type)
	}
	if sp.Meaning != "" {
		b.WriteString("\n\n" + sp.Meaning)
	}
	fmt.Fprintf(&b, "\n\nrequires PTX ISA %s, %s or higher (%s, Special Registers)\n", sp.PTX, sp.Target, sp.Section)
	return b.String()
}

// declText prints a declaration alone, for a hover.
func declText(v *ast.VarDecl) string {
	one := *v
	one.ExtraNames = nil
	s := printer.String(&one)
	if isa.LookupQual(one.Space) != isa.QParam && !strings.HasSuffix(s, ";") {
		s += ";"
	}
	return s
}

// headerText prints a function's header without its body.
func headerText(f *ast.Function) string {
	h := *f
	h.Body = nil
	return strings.TrimSuffix(strings.TrimSpace(printer.String(&h)), ";")
}

func itoa(i int) string { return strconv.Itoa(i) }
