package mm

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// MixedProxyInstance is one test of a mixedproxy (.test) file: the file
// itself, or one parameter row of a template.
type MixedProxyInstance struct {
	Instance int    // 1-based parameter row; 0 for a plain test
	Line     int    // the line of the parameter row or of the command
	Kind     string // permit or assert
	Expected string // "reachable" (permit) or "unreachable" (assert)
	Prog     *Program
}

// ParseMixedProxy parses a test in the format of NVlabs/mixedproxy:
// address declarations (.global x; .global y physically aliases x;
// .surfref s virtually aliases x; .texref t virtually aliases y;), thread
// blocks dD.bB.tT { ... } with bracketed PTX instructions, optional load
// constraints (ld r0, [x] == 1), and one command, permit (C) or assert (C).
// A template's rows below "$$" replace $0, $1, ... in the text above.
//
// Each instance becomes a Program whose witness is the constraints and C
// (permit, quantifier exists) or the constraints and not C (assert,
// quantifier ~exists), so that Pass reports agreement with the test.
func ParseMixedProxy(src []byte) ([]MixedProxyInstance, error) {
	text := strings.ReplaceAll(string(src), "\r\n", "\n")
	lines := strings.Split(text, "\n")
	sep := -1
	for i, l := range lines {
		if strings.TrimSpace(l) == "$$" {
			sep = i
			break
		}
	}
	if sep < 0 {
		in, err := parseMixedInstance(text, 0)
		if err != nil {
			return nil, err
		}
		return []MixedProxyInstance{in}, nil
	}
	tmpl := strings.Join(lines[:sep], "\n")
	var out []MixedProxyInstance
	expanded := 0
	for i := sep + 1; i < len(lines); i++ {
		row := strings.TrimSpace(lines[i])
		if row == "" || strings.HasPrefix(row, "#") {
			continue
		}
		if len(out) >= maxInstances {
			return nil, parseErr(i+1, fmt.Sprintf("more than %d template instances", maxInstances))
		}
		fields := strings.Split(row, "|")
		inst := tmpl
		for k := len(fields) - 1; k >= 0; k-- {
			inst = strings.ReplaceAll(inst, "$"+strconv.Itoa(k), strings.TrimSpace(fields[k]))
		}
		expanded += len(inst)
		if expanded > 16*len(src)+1<<20 {
			return nil, parseErr(i+1, "template instances expand to more than 16 times the file")
		}
		in, err := parseMixedInstance(inst, i+1)
		if err != nil {
			return nil, parseErr(i+1, "template instance: "+err.Error())
		}
		in.Instance = len(out) + 1
		in.Line = i + 1
		out = append(out, in)
	}
	return out, nil
}

// maxInstances bounds the instances of one template.
const maxInstances = 1024

// mixedSyntax holds the patterns of the mixed-proxy template format.
type mixedSyntax struct {
	thread, command, reg, cons *regexp.Regexp
}

// mixedRes compiles the patterns on the first mixed-proxy file, not at
// the start of every ptxkit command.
var mixedRes = sync.OnceValue(func() *mixedSyntax {
	return &mixedSyntax{
		thread:  regexp.MustCompile(`^d(\d+)\.b(\d+)\.t(\d+)\s*\{$`),
		command: regexp.MustCompile(`^(permit|assert)\s*(.*)\s+as\s+\w+\s*;?$`),
		reg:     regexp.MustCompile(`\br\d+\b`),
		cons:    regexp.MustCompile(`^(.*?)\s*==\s*(-?\d+)$`),
	}
})

func parseMixedInstance(text string, line int) (MixedProxyInstance, error) {
	prog := &Program{initRegs: map[string]map[string]int64{}}
	res := MixedProxyInstance{Line: line}
	var cons []string
	cur := -1
	regThread := map[string]int{}
	condLine := 1 // of the permit or assert command
	for ln, raw := range strings.Split(text, "\n") {
		l := strings.TrimSpace(raw)
		if i := strings.Index(l, "//"); i >= 0 {
			l = strings.TrimSpace(l[:i])
		}
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		errAt := func(err error) error { return parseErr(ln+1, err.Error()) }
		switch {
		case cur >= 0 && l == "}":
			cur = -1
		case cur >= 0:
			for _, stmt := range strings.Split(l, ";") {
				if stmt = strings.TrimSpace(stmt); stmt == "" {
					continue
				}
				in, c, err := mixedInstr(prog, stmt)
				if err != nil {
					return res, errAt(err)
				}
				in.Line, in.Text = ln+1, stmt
				prog.Threads[cur].Code = append(prog.Threads[cur].Code, in)
				if in.Dst != "" {
					regThread[in.Dst] = cur
				}
				if c != "" {
					cons = append(cons, fmt.Sprintf("%s == %s", in.Dst, c))
				}
			}
		case strings.HasPrefix(l, "."):
			if err := mixedDecl(prog, strings.TrimSuffix(l, ";")); err != nil {
				return res, errAt(err)
			}
		case mixedRes().thread.MatchString(l):
			m := mixedRes().thread.FindStringSubmatch(l)
			gpu, _ := strconv.Atoi(m[1])
			cta, _ := strconv.Atoi(m[2])
			if len(prog.Threads) >= maxThreads {
				return res, errAt(fmt.Errorf("more than %d threads", maxThreads))
			}
			cur = len(prog.Threads)
			prog.Threads = append(prog.Threads, Thread{Name: fmt.Sprintf("P%d", cur), CTA: cta, GPU: gpu, Cluster: -1})
		case mixedRes().command.MatchString(l):
			m := mixedRes().command.FindStringSubmatch(l)
			res.Kind = m[1]
			cond := m[2]
			all := cond
			if len(cons) > 0 {
				all = "(" + strings.Join(cons, " && ") + ") && "
				if res.Kind == "permit" {
					all += "(" + cond + ")"
				} else {
					all += "!(" + cond + ")"
				}
			} else if res.Kind == "assert" {
				all = "!(" + cond + ")"
			}
			prog.Quant, res.Expected = Exists, "reachable"
			if res.Kind == "assert" {
				prog.Quant, res.Expected = NotExists, "unreachable"
			}
			qualified := mixedRes().reg.ReplaceAllStringFunc(all, func(r string) string {
				if t, ok := regThread[r]; ok {
					return fmt.Sprintf("P%d:%s", t, r)
				}
				return r
			})
			prog.CondText = qualified
			condLine = ln + 1
			c, err := ParseCond(prog, qualified, ln+1)
			if err != nil {
				return res, err
			}
			prog.Cond = c
			prog.Name = strings.Fields(l[strings.LastIndex(l, " as ")+4:])[0]
			prog.Name = strings.TrimSuffix(prog.Name, ";")
		default:
			return res, errAt(fmt.Errorf("unexpected %q", l))
		}
	}
	if prog.Cond == nil {
		return res, parseErr(1, "missing permit or assert command")
	}
	if err := prog.finish(); err != nil {
		return res, err
	}
	if err := prog.checkCondRegs(condLine); err != nil {
		return res, err
	}
	res.Prog = prog
	return res, nil
}

// mixedDecl reads .global x, .global y physically aliases x,
// .surfref s virtually aliases x and .texref t virtually aliases y.
func mixedDecl(prog *Program, l string) error {
	f := strings.Fields(l)
	// The litmus file's declaration keywords, not PTX qualifiers.
	px := map[string]Proxy{"global": Generic, "surfref": Surface, "texref": Texture, "constref": Constant}
	p, ok := px[strings.TrimPrefix(f[0], ".")]
	ok = ok && strings.HasPrefix(f[0], ".")
	if !ok || len(f) != 2 && len(f) != 5 || len(f) == 5 && f[3] != "aliases" {
		return fmt.Errorf("bad declaration %q", l)
	}
	if len(f) == 2 {
		prog.addLoc(f[1])
		return nil
	}
	proxy := "generic"
	if f[2] == "virtually" && p != Generic {
		proxy = proxyNames[p]
	}
	return parseDecl(prog, fmt.Sprintf("%s @ %s aliases %s", f[1], proxy, f[4]), nil)
}

// mixedInstr rewrites one bracketed PTX statement into the litmus dialect
// (sem.scope.op, no brackets, .volatile read as .relaxed.sys per §8.4.2)
// and parses it; it returns a load constraint's value, if any.
func mixedInstr(prog *Program, stmt string) (Instr, string, error) {
	c := ""
	if m := mixedRes().cons.FindStringSubmatch(stmt); m != nil && strings.Contains(m[1], "[") {
		stmt, c = m[1], m[2]
	}
	opcode, rest, _ := strings.Cut(stmt, " ")
	rest = strings.NewReplacer("[", "", "]", "").Replace(rest)
	parts := strings.Split(opcode, ".")
	var sem, scope, op []string
	for _, q := range parts[1:] {
		switch {
		case q == "volatile":
			sem, scope = []string{"relaxed"}, []string{"sys"}
		case semByName[q] != 0 || q == "weak":
			sem = []string{q}
		case scopeByName[q] != 0:
			scope = []string{q}
		default:
			op = append(op, q)
		}
	}
	base := parts[0]
	switch base {
	case "ld", "st", "suld", "sust", "tld", "cold":
		if len(sem) == 0 {
			sem = []string{"weak"}
		}
	}
	q := append(append(append([]string{base}, sem...), scope...), op...)
	in, err := parseInstr(prog, strings.Join(q, ".")+" "+rest)
	return in, c, err
}
