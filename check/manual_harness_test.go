package check

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/parser"
)

// manualModule is the module that checks a group of a section's examples
// of one version and target: one kernel an example, each declaring the
// registers its example names.
type manualModule struct {
	version, target string
	src             string
	lines           map[int]int // a module line: the index of the example on it
	examples        []int
}

// manualModules groups the examples of s by version and target and
// builds their modules.
func manualModules(s *manualSection) []*manualModule {
	var mods []*manualModule
	byKey := map[string]*manualModule{}
	for i, e := range s.examples {
		v, tg := s.version, s.target
		if e.version != "" {
			v, tg = e.version, e.target
		}
		key := v + " " + tg
		if !parsesAlone(e.text) {
			// a syntax error stops the checker before it looks at the
			// other examples: such an example gets a module of its own
			key += fmt.Sprintf(" #%d", i)
		}
		m := byKey[key]
		if m == nil {
			m = &manualModule{version: v, target: tg, lines: map[int]int{}}
			byKey[key] = m
			mods = append(mods, m)
		}
		m.examples = append(m.examples, i)
	}
	for _, m := range mods {
		m.build(s)
	}
	return mods
}

// parsesAlone reports whether an example parses as the body of a kernel.
func parsesAlone(text string) bool {
	_, l := parser.ParseString("x.ptx", ".version 8.5\n.target sm_90a\n.address_size 64\n.entry k()\n{\n"+text+"\n}\n")
	return !l.HasErrors()
}

// build writes the module: the section's module-scope declarations, then
// a kernel for each example.
func (m *manualModule) build(s *manualSection) {
	var b strings.Builder
	fmt.Fprintf(&b, ".version %s\n.target %s\n", m.version, m.target)
	if v, err := isa.ParseVersion(m.version); err == nil && v < isa.V(2, 3) {
		b.WriteString("// .address_size needs PTX ISA 2.3\n") // kept as a line: the examples' line numbers stay
	} else {
		fmt.Fprintf(&b, ".address_size %d\n", s.addressSize)
	}
	inKernel := func(d string) bool {
		return strings.HasPrefix(d, ".reg") || strings.HasPrefix(d, ".local") || strings.HasPrefix(d, ".param") || strings.HasSuffix(d, ":") ||
			d == "{" || d == "}"
	}
	declared := map[string]bool{}
	for _, p := range s.params {
		for _, n := range declaredNames(p) {
			declared[n] = true
		}
	}
	for _, d := range s.decls {
		if !inKernel(d) {
			b.WriteString(d + "\n")
		}
		for _, n := range declaredNames(d) {
			declared[n] = true
		}
	}
	for k, i := range m.examples {
		e := &s.examples[i]
		fmt.Fprintf(&b, ".visible .entry k%d(%s)\n{\n", k, strings.Join(s.params, ", "))
		var labels []string
		local := maps.Clone(declared)
		for _, d := range append(slices.Clone(s.decls), e.context...) {
			for _, n := range declaredNames(d) {
				local[n] = true
			}
			switch {
			case strings.HasSuffix(d, ":"):
				labels = append(labels, d)
			case inKernel(d) || slices.Contains(e.context, d):
				b.WriteString(d + "\n")
			}
		}
		regs, more := exampleDecls(e.text, local)
		for _, r := range regs {
			b.WriteString(r + "\n")
		}
		m.lines[strings.Count(b.String(), "\n")+1] = i
		b.WriteString(e.text + "\n")
		for _, l := range append(labels, more...) {
			b.WriteString(l + "\n")
		}
		b.WriteString("ret;\n}\n")
	}
	m.src = b.String()
}

// declaredNames returns the names a declaration or label line declares.
func declaredNames(d string) []string {
	if strings.HasSuffix(d, ":") {
		return []string{strings.TrimSuffix(d, ":")}
	}
	if label, _, ok := cutLabel(d); ok { // "ts: .branchtargets L1, L2;"
		return []string{label}
	}
	d = strings.TrimSuffix(strings.TrimSpace(d), ";")
	var names []string
	fields := strings.Fields(d)
	for i, f := range fields {
		if strings.HasPrefix(f, ".") || i == 0 {
			continue
		}
		if j := strings.IndexByte(f, '('); j > 0 { // a function's name
			names = append(names, f[:j])
			break
		}
		for _, part := range strings.Split(f, ",") {
			part = strings.TrimSpace(part)
			if base, count, ok := strings.Cut(part, "<"); ok && strings.HasSuffix(count, ">") {
				n, _ := strconv.Atoi(strings.TrimSuffix(count, ">"))
				for i := range n { // d<4>: d0 .. d3
					names = append(names, fmt.Sprintf("%s%d", base, i))
				}
				continue
			}
			if j := strings.IndexAny(part, "[<="); j >= 0 {
				part = part[:j]
			}
			if part != "" && !strings.ContainsAny(part, "(){}") {
				names = append(names, part)
			}
		}
	}
	return names
}

// exampleDecls returns the register declarations an example needs, each
// name's type taken from the operand it stands in: the instruction form's
// operand type where the isa tables decode the example, else the width of
// its last type qualifier; and the labels it branches to.
func exampleDecls(text string, declared map[string]bool) (decls, labels []string) {
	mod, _ := parser.ParseString("e.ptx", ".version 8.5\n.target sm_90\n.entry k()\n{\n"+text+"\n}\n")
	in := firstInstruction(mod)
	if in == nil {
		return nil, nil
	}
	types := map[string]string{}
	var order []string
	add := func(name, typ string) {
		if name == "" || declared[name] || types[name] != "" || isa.LookupSReg(name) != nil || name == "_" {
			return
		}
		types[name] = typ
		order = append(order, name)
	}
	if in.Guard != nil && in.Guard.Reg != nil {
		add(in.Guard.Reg.Name, ".pred")
	}
	ot := operandTyper(in)
	for i, op := range in.Operands {
		typ := ot(i)
		if typ == "label" {
			if n := ast.NameOf(op); n != "" && !declared[n] {
				labels = append(labels, n+":")
				declared[n] = true
			}
			continue
		}
		if v, ok := op.(*ast.VectorExpr); ok && in.Opcode == "mov" && len(v.Elems) > 0 {
			// mov packs or unpacks: each element is a part of the whole.
			var bits int
			fmt.Sscanf(typ, ".b%d", &bits)
			typ = fmt.Sprintf(".b%d", bits/len(v.Elems))
		}
		walkOperand(op, typ, add)
	}
	for _, n := range order {
		decls = append(decls, fmt.Sprintf(".reg %s %s;", types[n], n))
	}
	return decls, labels
}

// walkOperand declares the names of one operand: the base of an address
// is a 64-bit register, a negated or paired name a predicate.
func walkOperand(op ast.Expr, typ string, add func(name, typ string)) {
	switch x := op.(type) {
	case *ast.Reg:
		add(x.Name, typ)
	case *ast.Ident:
		add(x.Name, typ)
	case *ast.VectorExpr:
		for _, e := range x.Elems {
			walkOperand(e, typ, add)
		}
	case *ast.Address:
		walkOperand(x.Base, ".b64", add)
		for _, e := range x.Index {
			walkOperand(e, ".b32", add)
		}
	case *ast.UnaryExpr:
		walkOperand(x.X, ".pred", add)
	case *ast.BinaryExpr:
		if x.Op == "|" {
			walkOperand(x.X, typ, add)
			walkOperand(x.Y, ".pred", add)
		} else {
			walkOperand(x.X, typ, add)
			walkOperand(x.Y, typ, add)
		}
	case *ast.ParenList:
		for _, e := range x.Elems {
			walkOperand(e, ".b32", add)
		}
	}
}

// firstInstruction returns the first instruction of the module's first
// function.
func firstInstruction(m *ast.Module) *ast.Instruction {
	if m == nil {
		return nil
	}
	for _, s := range m.Stmts {
		f, ok := s.(*ast.Function)
		if !ok || f.Body == nil {
			continue
		}
		for _, st := range f.Body.Stmts {
			if in, ok := st.(*ast.Instruction); ok {
				return in
			}
		}
	}
	return nil
}

// operandTyper returns the declaration type of each operand position of
// in: "label" for a label, ".pred" for a predicate, ".bN" for the others.
func operandTyper(in *ast.Instruction) func(int) string {
	names := make([]string, len(in.Quals))
	for i, q := range in.Quals {
		names[i] = q.Name
	}
	quals := isa.LookupQuals(names, nil)
	fallback := ".b32"
	for _, q := range quals {
		if q != isa.QNone && q.Bits() > 0 && q.Group() == isa.GType {
			fallback = regType(q.Bits())
		}
		if q == isa.LookupQual(".pred") {
			fallback = ".pred"
		}
	}
	if desc, _ := isa.SelectInstr(in.Opcode, names, quals); desc != nil {
		return func(int) string { return fallback }
	}
	var d isa.OpDecode
	probs := isa.DecodeOp(in.Opcode, names, quals, len(in.Operands), &d, nil)
	if d.Form == nil || hasError(probs) {
		return func(int) string { return fallback }
	}
	specs := d.Form.Operands
	for len(specs) > len(in.Operands) { // an optional operand left out
		k := slices.IndexFunc(specs, func(s isa.OperandSpec) bool { return s.Optional })
		if k < 0 {
			break
		}
		specs = slices.Delete(slices.Clone(specs), k, k+1)
	}
	return func(i int) string {
		if i >= len(specs) {
			return fallback
		}
		spec := specs[i]
		switch spec.Kind {
		case isa.OpdPredDst, isa.OpdPredSrc:
			return ".pred"
		case isa.OpdLabel:
			return "label"
		case isa.OpdMem:
			return ".b64"
		}
		q := spec.Fixed
		if spec.Slot >= 0 && spec.Slot < len(d.Form.Slots) {
			k := 0 // the slot's place among the type slots
			for _, sl := range d.Form.Slots[:spec.Slot] {
				if sl.Kind == isa.SlotType {
					k++
				}
			}
			if k < len(d.Types) {
				q = d.Types[k]
			}
		}
		if q == isa.LookupQual(".pred") {
			return ".pred"
		}
		if q == isa.QNone || q.Bits() == 0 {
			return fallback
		}
		bits := q.Bits()
		if spec.Wide {
			bits *= 2
		}
		return regType(bits)
	}
}

// regType is the bit-size register type of a width: bit-size registers
// stand for every type of their size.
func regType(bits int) string {
	if bits < 16 {
		bits = 16
	}
	return fmt.Sprintf(".b%d", bits)
}

func hasError(probs []isa.Problem) bool {
	for _, p := range probs {
		if !p.Warning {
			return true
		}
	}
	return false
}
