package lsp

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/resolve"
)

// completion offers, at the word being typed:
//   - at the start of a statement: the opcodes (PTX ISA §9.7);
//   - after "opcode.": the qualifiers of the instructions the isa tables
//     describe that may still be written, leaving out those the
//     document's .target and .version do not allow and those that clash
//     with qualifiers already written;
//   - a word starting with "." where a statement or declaration may
//     start: the directives and declaration keywords (PTX ISA §11, §5.1);
//   - after "%": the special registers and the registers declared in the
//     document.
func (s *Server) completion(params json.RawMessage) (any, *rpcError) {
	p, a, o, err := s.positionRequest(params)
	if err != nil {
		return nil, err
	}
	lineStart := a.text.lines[p.Position.Line]
	from := o
	for from > lineStart && isWordByte(a.text.src[from-1]) {
		from--
	}
	word := a.text.src[from:o]
	before := strings.TrimSpace(a.text.src[lineStart:from])
	var items []completionItem
	switch {
	case strings.HasPrefix(word, "%"):
		items = a.registerItems(word)
	case strings.HasPrefix(word, ".") && strings.Count(word, ".") == 1:
		if statementStart(before) || strings.HasPrefix(before, ".") {
			items = directiveItems(word)
		}
	case !strings.Contains(word, "."):
		if statementStart(before) {
			items = opcodeItems(word)
		}
	default:
		opcode, rest, _ := strings.Cut(word, ".")
		parts := strings.Split(rest, ".")
		written := make([]string, 0, len(parts)-1)
		for _, q := range parts[:len(parts)-1] {
			written = append(written, "."+q)
		}
		partial := "." + parts[len(parts)-1]
		items = a.qualifierItems(opcode, written, partial)
		// Replace the qualifier being typed, dot included.
		r := a.text.rangeOf(o-len(partial), o, s.enc)
		for i := range items {
			items[i].TextEdit = &textEdit{Range: r, NewText: items[i].Label}
			items[i].FilterText = items[i].Label
		}
	}
	if items == nil {
		items = []completionItem{}
	}
	return completionList{Items: items}, nil
}

func isWordByte(c byte) bool {
	return c == '.' || c == '_' || c == '%' || c == '$' || c == ':' ||
		'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// statementStart reports whether the text before a word on its line ends
// where an instruction may begin: nothing, a guard ("@%p1", "@!%p"), a
// label ("L1:"), or the end of another statement.
func statementStart(before string) bool {
	if before == "" || strings.HasSuffix(before, ":") || strings.HasSuffix(before, ";") ||
		strings.HasSuffix(before, "{") || strings.HasSuffix(before, "}") {
		return true
	}
	fields := strings.Fields(before)
	last := fields[len(fields)-1]
	return strings.HasPrefix(last, "@")
}

// directives are the directives and the state-space and linkage words
// that begin or continue a declaration (PTX ISA §11 "Directives", §5.1
// "State Spaces").
var directives = []string{
	".address_size", ".align", ".branchtargets", ".callprototype", ".calltargets", ".common", ".const",
	".entry", ".explicitcluster", ".extern", ".file", ".func", ".global", ".loc", ".local",
	".maxclusterrank", ".maxnreg", ".maxntid", ".minnctapersm", ".noreturn", ".param", ".pragma",
	".reg", ".reqnctapercluster", ".reqntid", ".section", ".shared", ".target", ".tex", ".version",
	".visible", ".weak",
}

func directiveItems(prefix string) []completionItem {
	var items []completionItem
	for _, d := range directives {
		if strings.HasPrefix(d, prefix) {
			items = append(items, completionItem{Label: d, Kind: completionKindKeyword, Detail: "PTX directive"})
		}
	}
	return items
}

// opcodeItems lists the opcodes starting with prefix: every opcode the
// isa tables describe and the other names of PTX ISA §9.7, each with its
// one-line summary.
func opcodeItems(prefix string) []completionItem {
	var items []completionItem
	for _, op := range allOpcodes() {
		if strings.HasPrefix(op, prefix) {
			items = append(items, completionItem{Label: op, Kind: completionKindKeyword, Detail: opcodeSummary(op)})
		}
	}
	return items
}

// allOpcodes is opcodes and isa.Opcodes together, sorted, computed on
// the first completion.
var allOpcodes = sync.OnceValue(func() []string {
	seen := map[string]bool{}
	var l []string
	for _, op := range append(append([]string(nil), opcodes...), isa.Opcodes()...) {
		if !seen[op] {
			seen[op] = true
			l = append(l, op)
		}
	}
	sort.Strings(l)
	return l
})

// opcodeSummary is what the tables say an opcode does: the store table's
// summary, the forms' doc line when they all share one page, or the
// instructions the opcode begins ("mbarrier.init, mbarrier.inval, ...").
func opcodeSummary(op string) string {
	if in := isa.Lookup(op); in != nil {
		return in.Summary
	}
	var titles []string
	var doc string
	for _, f := range isa.Forms(op) {
		if t := f.Title(); t != op && !slices.Contains(titles, t) || t == op && len(titles) == 0 {
			titles = append(titles, t)
			doc = f.Doc()
		}
	}
	switch len(titles) {
	case 0:
		return "PTX instruction (not described in ptxkit's tables)"
	case 1:
		return doc
	}
	return strings.Join(titles, ", ")
}

// qualifierItems lists the qualifiers that may follow opcode and the
// qualifiers written so far, starting with partial (".gl"): the store
// tables' (st, st.async, tcgen05.st) sorted by name, then the forms'
// (every other instruction, and st.bulk, tcgen05.alloc, ...) in syntax
// order, each once. SortText keeps that order in the client.
func (a *analysis) qualifierItems(opcode string, written []string, partial string) []completionItem {
	v, _ := isa.ParseVersion(a.version)
	t, _ := isa.ParseTarget(a.target)
	items := storeQualItems(opcode, written, partial, v, t)
	seen := make(map[string]bool, len(items))
	for _, it := range items {
		seen[it.Label] = true
	}
	for _, it := range formQualItems(opcode, written, partial, v, t) {
		if !seen[it.Label] {
			seen[it.Label] = true
			items = append(items, it)
		}
	}
	for i := range items {
		items[i].SortText = fmt.Sprintf("%04d", i)
	}
	return items
}

// storeQualItems lists the qualifiers the store tables allow after
// written, when the written ones belong to a store table instruction
// (st.bulk's .bulk does not: it is a form).
func storeQualItems(opcode string, written []string, partial string, v isa.Version, t isa.Target) []completionItem {
	in := isa.SelectFor(opcode, written)
	if in != nil && !writtenFit(in, written) {
		return nil
	}
	var items []completionItem
	add := func(q, detail string) {
		if strings.HasPrefix(q, partial) {
			items = append(items, completionItem{Label: q, Kind: completionKindEnum, Detail: detail})
		}
	}
	// Sub-opcodes that select another instruction (st -> st.async,
	// tcgen05 -> tcgen05.st).
	if in == nil || in.SubOp == isa.QNone {
		for _, other := range isa.Instrs() {
			if other.Opcode == opcode && other.SubOp != isa.QNone && allowed(other, append(append([]string(nil), written...), other.SubOp.String()), v, t, true) {
				add(other.SubOp.String(), other.Name+": "+other.Summary)
			}
		}
	}
	if in == nil {
		return items
	}
	filled := map[isa.Group]bool{}
	for _, w := range written {
		if q := isa.LookupQual(w); q != isa.QNone {
			filled[q.Group()] = true
		}
	}
	for _, g := range in.Groups {
		if filled[g.Group] {
			continue
		}
		for _, q := range g.Values {
			name := q.String()
			if name == "" || q == in.SubOp {
				continue
			}
			cand := append(append([]string(nil), written...), name)
			if isa.SelectFor(opcode, cand) == in && allowed(in, cand, v, t, false) {
				add(name, g.Group.String()+": "+g.Doc)
			}
		}
	}
	sort.SliceStable(items, func(i, j int) bool { return items[i].Label < items[j].Label })
	return items
}

// writtenFit reports whether the qualifiers written so far are all
// qualifiers of in, without conflicts.
func writtenFit(in *isa.Instr, written []string) bool {
	_, probs := isa.Decode(in, written, nil, nil)
	for _, p := range probs {
		if p.Qual >= 0 && (p.Rule == "unknown-qualifier" || p.Rule == "qualifier-not-allowed" || p.Rule == "qualifier-conflict") {
			return false
		}
	}
	return true
}

// allowed reports whether the last of names is acceptable in in: known,
// not clashing with an earlier qualifier, and allowed by the version and
// target (either may be zero, unknown). For a sub-opcode (subOp), the
// instruction it selects must be allowed too: its gates point at the
// opcode.
func allowed(in *isa.Instr, names []string, v isa.Version, t isa.Target, subOp bool) bool {
	f, probs := isa.Decode(in, names, nil, nil)
	probs = isa.Gate(&f, v, t, probs)
	last := len(names) - 1
	for _, p := range probs {
		gate := p.Rule == "ptx-version" || p.Rule == "target"
		switch {
		case p.Qual == last && (gate || p.Rule == "unknown-qualifier" || p.Rule == "qualifier-not-allowed" || p.Rule == "qualifier-conflict"):
			return false
		case p.Qual < 0 && subOp && gate:
			return false
		}
	}
	return true
}

// registerItems lists the special registers and the document's declared
// registers starting with prefix.
func (a *analysis) registerItems(prefix string) []completionItem {
	seen := map[string]bool{}
	var items []completionItem
	for _, d := range a.decls {
		if d.kind != resolve.Register || !strings.HasPrefix(d.name, prefix) || seen[d.name] {
			continue
		}
		seen[d.name] = true
		label := d.name
		if d.decl.Count >= 0 {
			label += "0" // %r<10>: offer the first register of the range
		}
		items = append(items, completionItem{Label: label, Kind: completionKindVariable, Detail: declDetail(d.decl)})
	}
	for _, name := range specialNames() {
		if strings.HasPrefix(name, prefix) {
			sp := resolve.LookupSpecial(name)
			items = append(items, completionItem{Label: name, Kind: completionKindVariable,
				Detail: ".sreg " + sp.Type, Documentation: sp.Meaning})
		}
	}
	return items
}
