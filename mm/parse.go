package mm

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseError is a syntax error in a litmus test, with its 1-based line
// and, when known, its 1-based byte column.
type ParseError struct {
	Line int
	Msg  string
	Col  int
}

func parseErr(line int, msg string) *ParseError { return &ParseError{Line: line, Msg: msg} }

func (e *ParseError) Error() string {
	if e.Col > 0 {
		return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg)
	}
	return fmt.Sprintf("%d: %s", e.Line, e.Msg)
}

// Limits that keep hostile input bounded.
const (
	maxThreads = 16
	maxInstrs  = 64 // per thread
	maxLocs    = 64
)

// ParseLitmus parses a test in the litmus format of the Dat3M PTX suite:
//
//	PTX name
//	"free text"
//	{ x=0; P0:r0=0; y @ surface aliases x; }
//	 P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;
//	 st.weak x, 1   | ld.acquire.gpu r0, x ;
//	exists (P1:r0 == 1)
//
// Addresses have no brackets, state spaces or types; qualifiers come in the
// order sem.scope.op. See docs/litmus.md for the whole dialect.
func ParseLitmus(src []byte) (*Program, error) {
	lines := strings.Split(strings.ReplaceAll(string(src), "\r\n", "\n"), "\n")
	prog := &Program{}
	i := 0
	for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
		i++
	}
	if i == len(lines) {
		return nil, parseErr(1, "empty input")
	}
	head := strings.Fields(lines[i])
	if len(head) < 1 || !strings.EqualFold(head[0], "PTX") {
		return nil, parseErr(i+1, "expected a header line \"PTX name\"")
	}
	if len(head) > 1 {
		prog.Name = head[1]
	}
	// Skip free text up to the init block.
	start := i + 1
	for i = start; i < len(lines) && !strings.Contains(lines[i], "{"); i++ {
	}
	if i == len(lines) {
		return nil, parseErr(start, "missing the initial-state block { ... }")
	}
	i, err := parseInit(prog, lines, i)
	if err != nil {
		return nil, err
	}
	return parseBody(prog, lines, i)
}

// parseInit reads the { ... } block starting at line i and returns the index
// of the line after it.
func parseInit(prog *Program, lines []string, i int) (int, error) {
	var b strings.Builder
	first := i
	b.WriteString(lines[i][strings.Index(lines[i], "{")+1:])
	for !strings.Contains(b.String(), "}") {
		i++
		if i == len(lines) {
			return 0, parseErr(first+1, "unterminated initial-state block")
		}
		b.WriteString("\n" + lines[i])
	}
	body := b.String()
	body = body[:strings.Index(body, "}")]
	line := first + 1
	regs := map[string]map[string]int64{}
	for _, decl := range strings.FieldsFunc(body, func(r rune) bool { return r == ';' || r == '\n' }) {
		decl = strings.TrimSpace(decl)
		if decl == "" {
			continue
		}
		if err := parseDecl(prog, decl, regs); err != nil {
			return 0, parseErr(line, err.Error())
		}
	}
	prog.initRegs = regs
	return i + 1, nil
}

func parseDecl(prog *Program, decl string, regs map[string]map[string]int64) error {
	if strings.Contains(decl, "@") {
		// "y @ surface aliases x"
		f := strings.Fields(decl)
		if len(f) != 5 || f[1] != "@" || f[3] != "aliases" {
			return fmt.Errorf("bad alias declaration %q", decl)
		}
		px, ok := proxyByName[f[2]]
		if !ok {
			return fmt.Errorf("unknown proxy %q", f[2])
		}
		if prog.LocIndex(f[0]) >= 0 {
			return fmt.Errorf("%s declared twice", f[0])
		}
		// A generic alias is another virtual address of the same physical
		// location; a surface, texture or constant alias names the same
		// virtual address seen through that proxy (§8.2.2, §8.6).
		target := prog.addLoc(f[4])
		virt := prog.Locs[target].Virt
		if px == Generic {
			virt = prog.nextVirt()
		}
		prog.Locs = append(prog.Locs, Location{Name: f[0], Phys: prog.Locs[target].Phys, Virt: virt, Proxy: px})
		return nil
	}
	eq := strings.Index(decl, "=")
	if eq < 0 {
		return fmt.Errorf("expected name=value, found %q", decl)
	}
	lhs, rhs := strings.TrimSpace(decl[:eq]), strings.TrimSpace(decl[eq+1:])
	v, err := strconv.ParseInt(rhs, 0, 64)
	if err != nil {
		return fmt.Errorf("bad initial value %q", rhs)
	}
	if th, reg, ok := strings.Cut(lhs, ":"); ok {
		th, reg = strings.TrimSpace(th), strings.TrimSpace(reg)
		if !isRegName(reg) {
			return fmt.Errorf("bad register %q", reg)
		}
		if regs[th] == nil {
			regs[th] = map[string]int64{}
		}
		regs[th][reg] = v
		return nil
	}
	if !isIdent(lhs) {
		return fmt.Errorf("bad location name %q", lhs)
	}
	if len(prog.Locs) >= maxLocs {
		return fmt.Errorf("more than %d locations", maxLocs)
	}
	prog.PhysInit[prog.Locs[prog.addLoc(lhs)].Phys] = v
	return nil
}

var proxyByName = map[string]Proxy{"generic": Generic, "surface": Surface, "texture": Texture, "constant": Constant, "async": Async}

// isRegName accepts the litmus registers r0, r1, ... and, for PTX kernels,
// PTX register names (%r1, %p0, %flag).
func isRegName(s string) bool {
	if len(s) > 1 && s[0] == '%' {
		return isIdent(s[1:])
	}
	if len(s) < 2 || s[0] != 'r' {
		return false
	}
	_, err := strconv.Atoi(s[1:])
	return err == nil
}

// parseBody reads the thread header row, the instruction rows and the
// final condition.
func parseBody(prog *Program, lines []string, i int) (*Program, error) {
	for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
		i++
	}
	if i == len(lines) {
		return nil, parseErr(len(lines), "missing the thread header row")
	}
	if err := parseHeaderRow(prog, lines[i], i+1); err != nil {
		return nil, err
	}
	for i++; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		if t == "" {
			continue
		}
		if q, rest, ok := cutQuantifier(t); ok {
			return parseFinal(prog, q, rest, lines[i+1:], i+1)
		}
		if rest, ok := strings.CutPrefix(t, "locations"); ok && strings.HasPrefix(strings.TrimSpace(rest), "[") {
			continue // the locations to print: every outcome shows the condition's
		}
		if rest, ok := strings.CutPrefix(t, "filter"); ok && (rest == "" || !isWordByte(rest[0])) {
			f, err := ParseCond(prog, rest, i+1)
			if err != nil {
				return nil, err
			}
			prog.Filter = f
			continue
		}
		if err := parseRow(prog, lines[i], i+1); err != nil {
			return nil, err
		}
	}
	return nil, parseErr(len(lines), "missing the final condition (exists, ~exists or forall)")
}

func cutQuantifier(t string) (Quantifier, string, bool) {
	for _, q := range []struct {
		word string
		q    Quantifier
	}{{"~exists", NotExists}, {"exists", Exists}, {"forall", Forall}} {
		if rest, ok := strings.CutPrefix(t, q.word); ok && (rest == "" || !isWordByte(rest[0])) {
			return q.q, rest, true
		}
	}
	return 0, "", false
}

func parseFinal(prog *Program, q Quantifier, rest string, more []string, line int) (*Program, error) {
	text := strings.TrimSpace(rest + " " + strings.Join(more, " "))
	prog.Quant = q
	prog.CondText = text
	c, err := ParseCond(prog, text, line)
	if err != nil {
		return nil, err
	}
	prog.Cond = c
	if err := prog.finish(); err != nil {
		return nil, err
	}
	if err := prog.checkCondRegs(line); err != nil {
		return nil, err
	}
	return prog, nil
}

func splitRow(s string) []string {
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(s, ";")
	return strings.Split(s, "|")
}

func parseHeaderRow(prog *Program, s string, line int) error {
	cells := splitRow(s)
	if len(cells) > maxThreads {
		return parseErr(line, fmt.Sprintf("more than %d threads", maxThreads))
	}
	for k, c := range cells {
		c = strings.TrimSpace(c)
		name, place, _ := strings.Cut(c, "@")
		name = strings.TrimSpace(name)
		if name != fmt.Sprintf("P%d", k) {
			return parseErr(line, fmt.Sprintf("thread column %d is %q, want P%d", k, name, k))
		}
		th := Thread{Name: name, Cluster: -1}
		for _, part := range strings.Split(place, ",") {
			f := strings.Fields(part)
			if len(f) == 0 {
				continue
			}
			if len(f) != 2 {
				return parseErr(line, fmt.Sprintf("bad placement %q", part))
			}
			n, err := strconv.Atoi(f[1])
			if err != nil || n < 0 {
				return parseErr(line, fmt.Sprintf("bad placement %q", part))
			}
			switch f[0] {
			case "cta":
				th.CTA = n
			case "gpu":
				th.GPU = n
			case "cluster":
				th.Cluster = n
			default:
				return parseErr(line, fmt.Sprintf("unknown placement %q", f[0]))
			}
		}
		prog.Threads = append(prog.Threads, th)
	}
	return nil
}

func parseRow(prog *Program, s string, line int) error {
	cells := splitRow(s)
	if len(cells) != len(prog.Threads) {
		return parseErr(line, fmt.Sprintf("%d columns, want %d", len(cells), len(prog.Threads)))
	}
	for k, c := range cells {
		c = strings.TrimSpace(c)
		if c == "" {
			continue
		}
		if len(prog.Threads[k].Code) >= maxInstrs {
			return parseErr(line, fmt.Sprintf("thread P%d has more than %d instructions", k, maxInstrs))
		}
		in, err := parseInstr(prog, c)
		if err != nil {
			return parseErr(line, fmt.Sprintf("P%d: %v", k, err))
		}
		in.Line = line
		in.Text = c
		prog.Threads[k].Code = append(prog.Threads[k].Code, in)
	}
	return nil
}

// finish applies register initialisations and checks branch targets.
func (p *Program) finish() error {
	for k := range p.Threads {
		th := &p.Threads[k]
		th.RegInit = map[string]int64{}
		for _, key := range []string{th.Name, strconv.Itoa(k)} {
			for r, v := range p.initRegs[key] {
				th.RegInit[r] = v
			}
		}
		labels := map[string]bool{}
		for _, in := range th.Code {
			if in.Op == OpLabel {
				if labels[in.Label] {
					return parseErr(in.Line, fmt.Sprintf("P%d: label %s defined twice", k, in.Label))
				}
				labels[in.Label] = true
			}
		}
		for _, in := range th.Code {
			if (in.Op == OpBranch || in.Op == OpGoto) && !labels[in.Label] {
				return parseErr(in.Line, fmt.Sprintf("P%d: undefined label %s", k, in.Label))
			}
		}
	}
	for th := range p.initRegs {
		if n, err := strconv.Atoi(strings.TrimPrefix(th, "P")); err != nil || n >= len(p.Threads) {
			return parseErr(1, fmt.Sprintf("initial value for unknown thread %q", th))
		}
	}
	return nil
}
