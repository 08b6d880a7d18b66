package sass

import "strings"

// modClass is the kind of an opcode modifier.
type modClass uint8

const (
	modSize modClass = iota
	modCop
	modE
	modPolicy
	modSem
)

// sizeAlias maps every accepted size spelling to its value: nvdisasm's, and
// the seed page's .8/.16/.32 aliases.
var sizeAlias = map[string]Size{
	"U8": U8, "8": U8, "S8": S8, "U16": U16, "16": U16, "S16": S16, "32": Size32, "64": Size64, "128": Size128,
}

// modifiers assigns the dotted modifiers of the opcode. col is the column
// of the first '.'.
func (p *parser) modifiers(mods []string, col int) {
	seen := map[modClass]bool{}
	for i := 0; i < len(mods); i++ {
		m, c := mods[i], col+1
		col += 1 + len(m)
		if cls, v, ok := p.semAt(mods[i:]); ok {
			n := strings.Count(p.semTable()[v], ".")
			for k := 0; k < n; k++ {
				col += 1 + len(mods[i+1+k])
			}
			i += n
			p.setMod(seen, cls, v, c, m)
			continue
		}
		cls, v, ok := p.classify(m, mods[i+1:])
		if !ok {
			p.failAt(c, "modifier", "%s has no modifier .%s on %s", p.in.Op, m, p.arch)
		}
		p.setMod(seen, cls, v, c, m)
	}
}

func (p *parser) setMod(seen map[modClass]bool, cls modClass, v uint8, col int, m string) {
	if seen[cls] {
		p.failAt(col, "modifier", "second %s modifier .%s", modClassNames[cls], m)
	}
	seen[cls] = true
	switch cls {
	case modSize:
		p.in.Size = Size(v)
		p.col[fSize] = col
	case modCop:
		p.in.Cop = v
		p.col[fCop] = col
	case modE:
		p.in.E = v != 0
		p.col[fE] = col
	case modPolicy:
		p.in.Policy = v
		p.col[fPolicy] = col
	case modSem:
		p.in.Sem = v
		p.col[fSem] = col
	}
}

var modClassNames = [...]string{modSize: "size", modCop: "cache", modE: ".E", modPolicy: "L1 policy", modSem: "semantics"}

// semAt matches a Turing+ STG/ST memory-semantics spelling ("STRONG.GPU",
// "CONSTANT.CTA.PRIVATE") at the start of mods, longest first.
func (p *parser) semAt(mods []string) (modClass, uint8, bool) {
	if p.arch.Gen() != Turing || (p.in.Op != STG && p.in.Op != ST && p.in.Op != STAS) {
		return 0, 0, false
	}
	best, bestN := -1, 0
	for v, name := range p.semTable() {
		if name == "" {
			continue
		}
		n := strings.Count(name, ".") + 1
		if n <= len(mods) && n > bestN && strings.Join(mods[:n], ".") == name {
			best, bestN = v, n
		}
	}
	return modSem, uint8(best), best >= 0
}

// classify returns the class and value of one modifier. rest are the
// modifiers after it (INVALID6/7 before a size is an L1 policy).
func (p *parser) classify(m string, rest []string) (modClass, uint8, bool) {
	if s, ok := sizeAlias[m]; ok {
		return modSize, uint8(s), true
	}
	op, g := p.in.Op, p.arch.Gen()
	if g == Maxwell {
		switch {
		case m == "INVALIDSIZE7":
			return modSize, uint8(Size7), true
		case m == "E" && (op == STG || op == ST):
			return modE, 1, true
		case m == "WB" && op == STL:
			return modCop, 0, true
		case op == STL || op == STG || op == ST:
			if v := index(maxwellCop[1:], m); v >= 0 {
				return modCop, uint8(v + 1), true
			}
		}
		return 0, 0, false
	}
	hasPolicy := op == STL || op == STG || op == ST
	if hasPolicy {
		if m == "E" && op != STL {
			return modE, 1, true
		}
		if m == "???0" && op != STL {
			return modE, 0, true // no .E with a 64-bit Ra
		}
		if v := index(turingPolicy[:], m); v >= 0 && m != "" && (m != "INVALID7" || sizeFollows(rest)) {
			return modPolicy, uint8(v), true
		}
	}
	if op == STAS && len(m) == 8 && strings.HasPrefix(m, "INVALID") && m[7] <= '3' && m[7] >= '0' {
		return modSize, m[7] - '0', true
	}
	if m == "INVALID7" {
		return modSize, uint8(Size7), true
	}
	return 0, 0, false
}

func sizeFollows(rest []string) bool {
	for _, m := range rest {
		if _, ok := sizeAlias[m]; ok || m == "INVALID7" {
			return true
		}
	}
	return false
}

// semTable returns the memory-semantics spellings of the opcode.
func (p *parser) semTable() *[16]string {
	if p.in.Op == STAS {
		return &stasSemNames
	}
	return &semNames
}
