// Command isagen reads isa/data/instructions.txt and writes isa/zforms.go:
// the qualifier spellings the store tables do not name, and one OpForm per
// form line. Run it with "go generate ./isa".
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"log"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/ptxkit/ptxkit/isa/internal/strindex"
)

func main() {
	in := flag.String("in", "data/instructions.txt", "instruction data")
	quals := flag.String("quals", "qual.go", "the hand-written qualifier table")
	out := flag.String("out", "zforms.go", "output")
	flag.Parse()
	g := &gen{sets: map[string][]string{}, known: map[string]string{}, types: map[string]typeInfo{}, docs: map[string]string{}}
	g.readQuals(*quals)
	g.read(*in)
	src, err := format.Source(g.emit())
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		log.Fatal(err)
	}
}

type typeInfo struct {
	bits int
	kind byte
}

type slot struct {
	kind   string // "one", "opt", "any", "type"
	name   string // type slot name
	values []string
	def    string
}

type operand struct {
	name, kind, typ string
	wide, optional  bool
	predOK          bool // ptxas also takes a .pred register (option pred=)
	predOut         bool // a destination written d|p (option predout=)
	sinkOK          bool // a destination that may be _ (option sink=)
	noHalf          bool // ptxas takes no .f16/.f16x2 register (option nohalf=)
	pair            bool // a predicate destination written p|q too (operand pq)
	limit           int64
}

type form struct {
	line             int
	name, opcode     string
	fixed            []string
	slots            []slot
	order            []int // slot i, or -k-1 for fixed[k], as written after the name
	ops              []operand
	anyOps           bool
	ptx, target, sec string
	relaxed, cvt     bool
	expanded         string // "70-89": sm range of ptxas's routine call (option expanded=)
	cmp              string
	head             int      // option name=N
	ignores          []string // option ignores=
	until            string   // option until=V[@sm_X]
	addr64           bool     // option addr64
	sreg             bool     // option sreg
}

type rule struct {
	name, kind string
	ifq, then  []string
}

type gate struct {
	name, ptx, target string
	quals             []string
}

type gen struct {
	sets    map[string][]string
	known   map[string]string // spelling -> Go constant of the hand-written table
	types   map[string]typeInfo
	newQ    []string // spellings to generate, in first-use order
	newSet  map[string]bool
	forms   []form
	gates   []gate
	rules   []rule
	docs    map[string]string
	classes [][2]string
}

var qualLine = regexp.MustCompile(`(Q\w+):\s*\{"([^"]+)"`)

func (g *gen) readQuals(path string) {
	b, err := os.ReadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range qualLine.FindAllSubmatch(b, -1) {
		g.known[string(m[2])] = string(m[1])
	}
	g.newSet = map[string]bool{}
}

func (g *gen) use(q string) {
	if !strings.HasPrefix(q, ".") {
		log.Fatalf("qualifier %q does not start with a dot", q)
	}
	if _, ok := g.known[q]; ok || g.newSet[q] {
		return
	}
	g.newSet[q] = true
	g.newQ = append(g.newQ, q)
}

func (g *gen) read(path string) {
	f, err := os.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		fields := strings.Fields(line)
		switch fields[0] {
		case "set":
			if strings.Contains(line, "|") {
				break // a form of the set instruction (PTX ISA §9.7.6.1)
			}
			g.sets[fields[1]] = fields[2:]
			continue
		case "type":
			bits, _ := strconv.Atoi(fields[2])
			g.types[fields[1]] = typeInfo{bits, fields[3][0]}
			g.use(fields[1])
			continue
		case "class":
			g.classes = append(g.classes, [2]string{fields[1], fields[2]})
			continue
		case "doc":
			g.docs[fields[1]] = strings.Join(fields[2:], " ")
			continue
		case "rule":
			r := rule{name: fields[1], ifq: strings.Split(fields[2], ","), kind: fields[3]}
			if r.kind != "requires" && r.kind != "excludes" || len(fields) != 5 {
				log.Fatalf("line %d: bad rule %q", n, line)
			}
			r.then = strings.Split(fields[4], ",")
			for _, q := range append(append([]string(nil), r.ifq...), r.then...) {
				g.use(q)
			}
			g.rules = append(g.rules, r)
			continue
		case "gate":
			qs := strings.Split(fields[2], ",")
			for _, q := range qs {
				g.use(q)
			}
			g.gates = append(g.gates, gate{name: fields[1], quals: qs, ptx: fields[3], target: fields[4]})
			continue
		}
		g.forms = append(g.forms, g.parseForm(n, line))
	}
	if err := sc.Err(); err != nil {
		log.Fatal(err)
	}
}

func (g *gen) expand(list []string) []string {
	var out []string
	for _, v := range list {
		if s, ok := g.sets[v]; ok {
			out = append(out, s...)
			continue
		}
		out = append(out, v)
	}
	for _, v := range out {
		g.use(strings.TrimSuffix(v, "*"))
	}
	return out
}

func (g *gen) parseForm(n int, line string) form {
	parts := strings.Split(line, "|")
	if len(parts) < 4 {
		log.Fatalf("line %d: want name slots | operands | version target | section", n)
	}
	// The target field may itself hold '|' (sm_100a|sm_101a): rejoin.
	head := strings.Fields(parts[0])
	f := form{line: n, name: head[0]}
	rest := parts[2:]
	// find the "PTX target" field: the first field starting with a digit
	i := 0
	for ; i < len(rest); i++ {
		if t := strings.TrimSpace(rest[i]); t != "" && unicode.IsDigit(rune(t[0])) && strings.Contains(t, " ") {
			break
		}
	}
	vt := strings.TrimSpace(rest[i])
	j := i + 1
	for j < len(rest) && strings.HasPrefix(strings.TrimSpace(rest[j]), "sm_") {
		vt += "|" + strings.TrimSpace(rest[j])
		j++
	}
	vf := strings.Fields(vt)
	f.ptx, f.target = vf[0], vf[1]
	f.sec = strings.TrimSpace(rest[j])
	var predOpts, noHalfOpts, typedOpts, predOutOpts, sinkOpts []string
	for _, opt := range rest[j+1:] {
		opt = strings.TrimSpace(opt)
		switch {
		case opt == "relaxed":
			f.relaxed = true
		case opt == "cvt":
			f.cvt = true
		case opt == "addr64":
			f.addr64 = true
		case strings.HasPrefix(opt, "cmp="):
			f.cmp = opt[4:]
		case strings.HasPrefix(opt, "sink="):
			sinkOpts = append(sinkOpts, strings.Split(opt[5:], ",")...)
		case opt == "sreg":
			f.sreg = true
		case strings.HasPrefix(opt, "predout="):
			predOutOpts = append(predOutOpts, strings.Split(opt[8:], ",")...)
		case strings.HasPrefix(opt, "pred="):
			predOpts = append(predOpts, strings.Split(opt[5:], ",")...)
		case strings.HasPrefix(opt, "name="):
			h, err := strconv.Atoi(opt[5:])
			if err != nil || h < 1 {
				log.Fatalf("line %d: bad option %q", n, opt)
			}
			f.head = h
		case strings.HasPrefix(opt, "ignores="):
			f.ignores = strings.Split(opt[8:], ",")
		case strings.HasPrefix(opt, "nohalf="):
			noHalfOpts = append(noHalfOpts, strings.Split(opt[7:], ",")...)
		case strings.HasPrefix(opt, "expanded="):
			f.expanded = opt[9:]
		case strings.HasPrefix(opt, "until="):
			f.until = opt[6:]
		case strings.HasPrefix(opt, "typed="):
			typedOpts = append(typedOpts, strings.Split(opt[6:], ",")...)
		default:
			log.Fatalf("line %d: unknown option %q", n, opt)
		}
	}
	nameParts := strings.Split(f.name, ".")
	f.opcode = nameParts[0]
	for _, p := range nameParts[1:] {
		f.fixed = append(f.fixed, "."+p)
	}
	f.slots = g.parseSlots(n, strings.Join(head[1:], " "), &f)
	if f.head > len(f.order) {
		log.Fatalf("line %d: name=%d is longer than the syntax", n, f.head)
	}
	for i := 0; i < f.head; i++ {
		if o := f.order[i]; o >= 0 && f.slots[o].kind != "one" {
			log.Fatalf("line %d: name=%d covers a slot that is not required", n, f.head)
		}
	}
	f.ops, f.anyOps = parseOperands(n, parts[1])
	for _, name := range predOpts {
		k := slices.IndexFunc(f.ops, func(o operand) bool { return o.name == name })
		if k < 0 {
			log.Fatalf("line %d: pred=%s names no operand", n, name)
		}
		f.ops[k].predOK = true
	}
	for _, name := range sinkOpts {
		k := slices.IndexFunc(f.ops, func(o operand) bool { return o.name == name && (o.kind == "d" || o.kind == "p") })
		if k < 0 {
			log.Fatalf("line %d: sink=%s names no destination", n, name)
		}
		f.ops[k].sinkOK = true
	}
	for _, name := range predOutOpts {
		k := slices.IndexFunc(f.ops, func(o operand) bool { return o.name == name && o.kind == "d" })
		if k < 0 {
			log.Fatalf("line %d: predout=%s names no destination", n, name)
		}
		f.ops[k].predOut = true
	}
	for _, name := range noHalfOpts {
		k := slices.IndexFunc(f.ops, func(o operand) bool { return o.name == name })
		if k < 0 {
			log.Fatalf("line %d: nohalf=%s names no operand", n, name)
		}
		f.ops[k].noHalf = true
	}
	for _, name := range typedOpts {
		k := slices.IndexFunc(f.ops, func(o operand) bool { return o.name == name && (o.kind == "p" || o.kind == "c") })
		t := slices.IndexFunc(f.slots, func(s slot) bool { return s.kind == "type" })
		if k < 0 || t < 0 {
			log.Fatalf("line %d: typed=%s names no predicate operand, or the form has no type slot", n, name)
		}
		f.ops[k].typ = f.slots[t].name
	}
	return f
}

func (g *gen) parseSlots(n int, s string, f *form) []slot {
	var slots []slot
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		switch s[0] {
		case '(', '[', '{':
			closer := map[byte]byte{'(': ')', '[': ']', '{': '}'}[s[0]]
			k := strings.IndexByte(s, closer)
			if k < 0 {
				log.Fatalf("line %d: unclosed %c", n, s[0])
			}
			vals := g.expand(strings.Fields(s[1:k]))
			sl := slot{kind: map[byte]string{'(': "one", '[': "opt", '{': "any"}[s[0]]}
			for _, v := range vals {
				if strings.HasSuffix(v, "*") {
					v = strings.TrimSuffix(v, "*")
					sl.def = v
				}
				sl.values = append(sl.values, v)
			}
			slots = append(slots, sl)
			f.order = append(f.order, len(slots)-1)
			s = s[k+1:]
		default:
			tok, rest, _ := strings.Cut(s, " ")
			s = rest
			if name, set, ok := strings.Cut(tok, "="); ok {
				vals := g.expand(strings.Split(set, ","))
				slots = append(slots, slot{kind: "type", name: name, values: vals})
				f.order = append(f.order, len(slots)-1)
				continue
			}
			if strings.HasSuffix(tok, "?") {
				q := strings.TrimSuffix(tok, "?")
				g.use(q)
				slots = append(slots, slot{kind: "opt", values: []string{q}})
				f.order = append(f.order, len(slots)-1)
				continue
			}
			g.use(tok)
			f.fixed = append(f.fixed, tok)
			f.order = append(f.order, -len(f.fixed))
		}
	}
	for _, q := range f.fixed {
		g.use(q)
	}
	return slots
}

func parseOperands(n int, s string) ([]operand, bool) {
	var ops []operand
	for _, t := range strings.Split(s, ",") {
		t = strings.TrimSpace(t)
		if t == "" {
			continue
		}
		if t == "x*" {
			return ops, true
		}
		var o operand
		if strings.HasSuffix(t, "?") {
			o.optional = true
			t = strings.TrimSuffix(t, "?")
		}
		if k, lim, ok := strings.Cut(t, "<"); ok {
			v, err := strconv.ParseInt(lim, 10, 64)
			if err != nil {
				log.Fatalf("line %d: bad limit %q", n, t)
			}
			o.limit = v
			t = k
		}
		name, typ, _ := strings.Cut(t, ":")
		if n, err := strconv.Atoi(strings.TrimPrefix(name, "v")); err == nil && strings.HasPrefix(name, "v") && typ != "" {
			// v4:T: a braced vector of 4 registers (v:T: as many as
			// the form's .vN says)
			name, o.limit = "v", int64(n)
		}
		if n, err := strconv.Atoi(strings.TrimPrefix(name, "d")); err == nil && strings.HasPrefix(name, "d") && typ != "" {
			// d4:T: a destination vector of 4 registers (ldmatrix)
			name, o.limit = "d", int64(n)
		}
		o.name = name
		switch {
		case typ == "" && (name == "p" || name == "c" || name == "m" || name == "l" || name == "x" || name == "n"):
			o.kind = name
		case typ == "" && name == "pq":
			o.name, o.kind, o.pair = "p", "p", true
		case typ != "":
			o.kind = map[string]string{"d": "d", "r": "r", "s": "s", "v": "v"}[name]
			if o.kind == "" {
				o.kind = "a"
			}
		default:
			log.Fatalf("line %d: unknown operand %q", n, t)
		}
		if typ != "" {
			if strings.HasSuffix(typ, "2") && !strings.HasPrefix(typ, ".") {
				o.wide = true
				typ = strings.TrimSuffix(typ, "2")
			}
			o.typ = typ
		}
		if o.limit != 0 && o.kind == "n" {
			o.name = "n"
		}
		ops = append(ops, o)
	}
	nameOperands(ops)
	return ops, false
}

// nameOperands gives the operands written by their kind (r:T, s:T) the
// first letter from a on that no other operand of the form uses.
func nameOperands(ops []operand) {
	used := map[string]bool{}
	for _, o := range ops {
		used[o.name] = true
	}
	for i := range ops {
		if ops[i].name != "r" && ops[i].name != "s" {
			continue
		}
		for c := 'a'; c <= 'z'; c++ {
			if !used[string(c)] {
				ops[i].name = string(c)
				used[string(c)] = true
				break
			}
		}
	}
}

// constName returns the Go constant of a generated spelling.
func constName(q string, used map[string]bool) string {
	var b strings.Builder
	b.WriteString("Q")
	up := true
	for _, r := range q[1:] {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if up {
				r = unicode.ToUpper(r)
			}
			b.WriteRune(r)
			up = false
		default:
			if b.Len() > 1 && !strings.HasSuffix(b.String(), "_") {
				b.WriteByte('_')
			}
			up = true
		}
	}
	name := strings.TrimSuffix(b.String(), "_")
	for used[name] {
		name += "_"
	}
	used[name] = true
	return name
}

func (g *gen) emit() []byte {
	var b bytes.Buffer
	b.WriteString("// Code generated by isagen from data/instructions.txt; DO NOT EDIT.\n\npackage isa\n\n")
	b.WriteString("import \"github.com/ptxkit/ptxkit/isa/internal/strindex\"\n\n")
	used := map[string]bool{}
	for _, c := range g.known {
		used[c] = true
	}
	names := map[string]string{}
	for k, v := range g.known {
		names[k] = v
	}
	b.WriteString("// The qualifier spellings of data/instructions.txt that qual.go does not name.\nconst (\n")
	for i, q := range g.newQ {
		c := constName(q, used)
		names[q] = c
		if i == 0 {
			fmt.Fprintf(&b, "\t%s Qual = numStoreQuals + iota // %s\n", c, q)
		} else {
			fmt.Fprintf(&b, "\t%s // %s\n", c, q)
		}
	}
	b.WriteString("\n\tnumQuals\n)\n\n")
	b.WriteString("var genQuals = [numQuals - numStoreQuals]qualInfo{\n")
	for _, q := range g.newQ {
		if t, ok := g.types[q]; ok {
			fmt.Fprintf(&b, "\t%s - numStoreQuals: {%q, GType, %d, '%c'},\n", names[q], q, t.bits, t.kind)
		} else {
			fmt.Fprintf(&b, "\t%s - numStoreQuals: {%q, GMod, 0, 0},\n", names[q], q)
		}
	}
	b.WriteString("}\n\n")
	ql := func(vs []string) string {
		var l []string
		for _, v := range vs {
			l = append(l, names[v])
		}
		return "[]Qual{" + strings.Join(l, ", ") + "}"
	}
	b.WriteString("// opForms are the forms of data/instructions.txt, in file order.\nvar opForms = [...]OpForm{\n")
	for _, f := range g.forms {
		fmt.Fprintf(&b, "\t{Name: %q, Opcode: %q, Line: %d, Section: %q, PTX: %s, Arch: %s,\n", f.name, f.opcode, f.line, "PTX ISA "+f.sec, verExpr(f.ptx), archExpr(f.target))
		if len(f.fixed) > 0 {
			fmt.Fprintf(&b, "\t\tFixed: %s,\n", ql(f.fixed))
		}
		if len(f.order) > 0 {
			var l []string
			for _, o := range f.order {
				l = append(l, strconv.Itoa(o))
			}
			fmt.Fprintf(&b, "\t\tOrder: []int8{%s},\n", strings.Join(l, ", "))
		}
		if len(f.slots) > 0 {
			b.WriteString("\t\tSlots: []Slot{")
			for _, s := range f.slots {
				kind := map[string]string{"one": "SlotOne", "opt": "SlotOpt", "any": "SlotAny", "type": "SlotType"}[s.kind]
				fmt.Fprintf(&b, "{Kind: %s, Values: %s", kind, ql(s.values))
				if s.def != "" {
					fmt.Fprintf(&b, ", Default: %s", names[s.def])
				}
				if s.name != "" {
					fmt.Fprintf(&b, ", Name: %q", s.name)
				}
				b.WriteString("}, ")
			}
			b.WriteString("},\n")
		}
		if len(f.ops) > 0 {
			b.WriteString("\t\tOperands: []OperandSpec{")
			for _, o := range f.ops {
				fmt.Fprintf(&b, "{Name: %q, Kind: %s", o.name, opKind(o.kind))
				if o.typ != "" {
					if strings.HasPrefix(o.typ, ".") {
						g.use(o.typ)
						fmt.Fprintf(&b, ", Fixed: %s", names[o.typ])
					} else {
						idx := -1
						for i, s := range f.slots {
							if s.kind == "type" && s.name == o.typ {
								idx = i
							}
						}
						if idx < 0 {
							log.Fatalf("line %d: operand type %s names no slot", f.line, o.typ)
						}
						fmt.Fprintf(&b, ", Slot: %d", idx)
					}
				} else {
					b.WriteString(", Slot: -1")
				}
				if o.typ != "" && strings.HasPrefix(o.typ, ".") {
					b.WriteString(", Slot: -1")
				}
				if o.wide {
					b.WriteString(", Wide: true")
				}
				if o.optional {
					b.WriteString(", Optional: true")
				}
				if o.pair {
					b.WriteString(", Pair: true")
				}
				if o.predOK {
					b.WriteString(", PredOK: true")
				}
				if o.noHalf {
					b.WriteString(", NoHalf: true")
				}
				if o.predOut {
					b.WriteString(", PredOut: true")
				}
				if o.sinkOK {
					b.WriteString(", SinkOK: true")
				}
				if o.limit != 0 {
					fmt.Fprintf(&b, ", Limit: %d", o.limit)
				}
				b.WriteString("}, ")
			}
			b.WriteString("},\n")
		}
		var opts []string
		if f.anyOps {
			opts = append(opts, "AnyOperands: true")
		}
		if f.relaxed {
			opts = append(opts, "Mode: ModeRelaxed")
		}
		if f.cvt {
			opts = append(opts, "Mode: ModeCvt")
		}
		if f.cmp != "" {
			opts = append(opts, "Cmp: "+map[string]string{"int": "CmpInt", "float": "CmpFloat"}[f.cmp])
		}
		if f.head > 0 {
			opts = append(opts, "Head: "+strconv.Itoa(f.head))
		}
		if len(f.ignores) > 0 {
			for _, q := range f.ignores {
				g.use(q)
			}
			opts = append(opts, "Ignores: "+ql(f.ignores))
		}
		if lo, hi, ok := strings.Cut(f.expanded, "-"); ok {
			opts = append(opts, "Expanded: [2]int{"+lo+", "+hi+"}")
		} else if f.expanded != "" {
			log.Fatalf("line %d: expanded=%s is not a range 70-89", f.line, f.expanded)
		}
		if f.sreg {
			opts = append(opts, "SRegOK: true")
		}
		if f.addr64 {
			opts = append(opts, "Addr64: true")
		}
		if f.until != "" {
			v, sm, _ := strings.Cut(f.until, "@")
			n := 0
			if sm != "" {
				var err error
				if n, err = strconv.Atoi(strings.TrimPrefix(sm, "sm_")); err != nil || !strings.HasPrefix(sm, "sm_") {
					log.Fatalf("line %d: until=%s: want a version and optionally @sm_XX", f.line, f.until)
				}
			}
			opts = append(opts, "Until: "+verExpr(v)+", UntilSM: "+strconv.Itoa(n))
		}
		if len(opts) > 0 {
			fmt.Fprintf(&b, "\t\t%s,\n", strings.Join(opts, ", "))
		}
		b.WriteString("\t},\n")
	}
	b.WriteString("}\n\n")
	b.WriteString("// qualGates are the gate lines: a qualifier of an instruction that needs a newer version or target than the form.\nvar qualGates = [...]QualGate{\n")
	for _, gt := range g.gates {
		for _, q := range gt.quals {
			fmt.Fprintf(&b, "\t{Name: %q, Qual: %s, PTX: %s, Arch: %s},\n", gt.name, names[q], verExpr(gt.ptx), archExpr(gt.target))
		}
	}
	b.WriteString("}\n\n")
	b.WriteString("// formRules are the rule lines.\nvar formRules = [...]FormRule{\n")
	for _, r := range g.rules {
		fmt.Fprintf(&b, "\t{Name: %q, If: %s, Excludes: %v, Then: %s},\n", r.name, ql(r.ifq), r.kind == "excludes", ql(r.then))
	}
	b.WriteString("}\n\n")
	g.emitIndexes(&b, names)
	b.WriteString("// opClasses map section prefixes to class names.\nvar opClasses = [...][2]string{\n")
	for _, c := range g.classes {
		fmt.Fprintf(&b, "\t{%q, %q},\n", "PTX ISA "+c[0], c[1])
	}
	b.WriteString("}\n")
	return b.Bytes()
}

// emitIndexes writes the lookup tables of the forms, the qualifier
// spellings and the doc lines as data, so that no process builds them:
// qualIndex (spelling -> Qual), formIndex (opcode -> position in
// formOpcodes and opcodeForms, sorted by opcode; the forms in file order)
// and docIndex (doc key -> position in opDocText).
func (g *gen) emitIndexes(b *bytes.Buffer, names map[string]string) {
	var spellings []string
	for q := range names {
		spellings = append(spellings, q)
	}
	sort.Strings(spellings)
	b.WriteString("// qualIndex maps every qualifier spelling to its Qual.\nvar qualIndex = ")
	strindex.Build(spellings, make([]uint16, len(spellings))).Literal(b, func(k string) string { return "uint16(" + names[k] + ")" })
	b.WriteString("\n\n")

	byOp := map[string][]int{}
	var ops []string
	for i, f := range g.forms {
		if byOp[f.opcode] == nil {
			ops = append(ops, f.opcode)
		}
		byOp[f.opcode] = append(byOp[f.opcode], i)
	}
	sort.Strings(ops)
	b.WriteString("// formOpcodes are the opcodes of the forms, sorted.\nvar formOpcodes = [...]string{")
	for i, op := range ops {
		if i%8 == 0 {
			b.WriteString("\n\t")
		}
		fmt.Fprintf(b, "%q, ", op)
	}
	b.WriteString("\n}\n\n// opcodeForms[i] are the forms of formOpcodes[i], in file order.\nvar opcodeForms = [len(formOpcodes)][]*OpForm{\n")
	pos := map[string]string{}
	for i, op := range ops {
		pos[op] = strconv.Itoa(i)
		b.WriteString("\t{")
		for j, k := range byOp[op] {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(b, "&opForms[%d]", k)
		}
		fmt.Fprintf(b, "}, // %s\n", op)
	}
	b.WriteString("}\n\n// formIndex maps an opcode to its position in formOpcodes.\nvar formIndex = ")
	strindex.Build(ops, make([]uint16, len(ops))).Literal(b, func(k string) string { return pos[k] })
	b.WriteString("\n\n")

	var keys []string
	for k := range g.docs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b.WriteString("// opDocText are the doc lines: what each instruction does, sorted by key.\nvar opDocText = [...]string{\n")
	docPos := map[string]string{}
	for i, k := range keys {
		docPos[k] = strconv.Itoa(i)
		fmt.Fprintf(b, "\t%q, // %s\n", g.docs[k], k)
	}
	b.WriteString("}\n\n// docIndex maps a doc key (an instruction name) to its position in opDocText.\nvar docIndex = ")
	strindex.Build(keys, make([]uint16, len(keys))).Literal(b, func(k string) string { return docPos[k] })
	b.WriteString("\n\n")
}

func opKind(k string) string {
	return map[string]string{"d": "OpdDst", "a": "OpdSrc", "r": "OpdReg", "n": "OpdImm", "p": "OpdPredDst",
		"c": "OpdPredSrc", "m": "OpdMem", "l": "OpdLabel", "s": "OpdMovSrc", "v": "OpdVector", "x": "OpdAny"}[k]
}

func verExpr(s string) string {
	maj, min, ok := strings.Cut(s, ".")
	if !ok {
		log.Fatalf("bad version %q", s)
	}
	// V(maj, min) as a constant (major<<8 | minor, Version's layout): the
	// compiler lays constants out in the data, where a call of V in a
	// table of hundreds of forms becomes a store at start-up to every
	// page of the table.
	return maj + "<<8 | " + min
}

// archExpr turns "sm_70", "sm_90a", "sm_100a|sm_101a", "sm_100a|sm_100f" or
// "-" into an Arch.
func archExpr(s string) string {
	switch s {
	case "-":
		return "Arch{}"
	case "tcgen05":
		// tcgen05Arch (st.go) spelled out: a literal the linker lays out,
		// where a reference to the variable is copied at start-up.
		return "Arch{Arch: []int{100, 101, 110}, Family: []int{100, 101, 110}, FamilySince: 8<<8 | 8}"
	}
	var arch, fam []string
	min := ""
	for _, t := range strings.Split(s, "|") {
		t = strings.TrimPrefix(t, "sm_")
		switch {
		case strings.HasSuffix(t, "a"):
			arch = append(arch, strings.TrimSuffix(t, "a"))
		case strings.HasSuffix(t, "f"):
			// a family target (sm_100f): every sm_10x target with a
			// suffix, from PTX ISA 8.8, which introduced them
			fam = append(fam, strings.TrimSuffix(t, "f"))
		default:
			min = t
		}
	}
	if len(fam) > 0 {
		return "Arch{Arch: []int{" + strings.Join(arch, ", ") + "}, Family: []int{" + strings.Join(fam, ", ") + "}, FamilySince: 8<<8 | 8}"
	}
	if len(arch) > 0 {
		return "Arch{Arch: []int{" + strings.Join(arch, ", ") + "}}"
	}
	return "SM(" + min + ")"
}
