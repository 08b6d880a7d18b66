package mm

import (
	"fmt"
	"strconv"
	"strings"
)

// Cond is a litmus condition: a boolean formula over final registers and
// final memory values.
type Cond interface {
	eval(o *Outcome) bool
	String() string
}

// Term is one side of a comparison: a thread's register, a location's
// final value, or a constant.
type Term struct {
	Thread int    // -1 for a location or constant
	Reg    string // register name when Thread >= 0
	Loc    int    // location index when Thread < 0 and IsLoc
	IsLoc  bool
	Val    int64
	text   string
}

func (t Term) value(o *Outcome) int64 {
	switch {
	case t.Thread >= 0:
		return o.Regs[t.Thread][t.Reg]
	case t.IsLoc:
		return o.Mem[t.Loc]
	}
	return t.Val
}

type cmpCond struct {
	op   string
	l, r Term
}

func (c *cmpCond) eval(o *Outcome) bool {
	a, b := c.l.value(o), c.r.value(o)
	switch c.op {
	case "==":
		return a == b
	case "!=":
		return a != b
	case "<":
		return a < b
	case ">":
		return a > b
	case "<=":
		return a <= b
	}
	return a >= b
}

func (c *cmpCond) String() string { return c.l.text + " " + c.op + " " + c.r.text }

type notCond struct{ x Cond }

func (c *notCond) eval(o *Outcome) bool { return !c.x.eval(o) }
func (c *notCond) String() string       { return "~(" + c.x.String() + ")" }

type binCond struct {
	and  bool
	l, r Cond
}

func (c *binCond) eval(o *Outcome) bool {
	if c.and {
		return c.l.eval(o) && c.r.eval(o)
	}
	return c.l.eval(o) || c.r.eval(o)
}

func (c *binCond) String() string {
	op := ` \/ `
	if c.and {
		op = ` /\ `
	}
	return "(" + c.l.String() + op + c.r.String() + ")"
}

type constCond bool

func (c constCond) eval(*Outcome) bool { return bool(c) }
func (c constCond) String() string     { return strconv.FormatBool(bool(c)) }

// condParser parses the herd-style condition language: atoms compare
// P1:r0 (also 1:r0, P1: r0), locations and constants with == != < > <= >=
// (= is ==); connectives /\ \/ ~ not, with parentheses. The &&, || and !
// spellings of the mixedproxy format are accepted too.
type condParser struct {
	toks []string
	pos  int
	prog *Program
	line int
}

func tokenizeCond(s string) []string {
	var toks []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case strings.HasPrefix(s[i:], `/\`), strings.HasPrefix(s[i:], `\/`),
			strings.HasPrefix(s[i:], "=="), strings.HasPrefix(s[i:], "!="),
			strings.HasPrefix(s[i:], "<="), strings.HasPrefix(s[i:], ">="),
			strings.HasPrefix(s[i:], "&&"), strings.HasPrefix(s[i:], "||"):
			toks = append(toks, s[i:i+2])
			i += 2
		case strings.ContainsRune("()~<>=!:", rune(c)):
			toks = append(toks, s[i:i+1])
			i++
		default:
			j := i
			for j < len(s) && (isWordByte(s[j]) || (s[j] == '-' || s[j] == '%') && j == i) {
				j++
			}
			if j == i {
				toks = append(toks, s[i:i+1])
				i++
				continue
			}
			toks = append(toks, s[i:j])
			i = j
		}
	}
	return toks
}

func isWordByte(c byte) bool {
	return c == '_' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func (p *condParser) peek() string {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return ""
}

func (p *condParser) next() string {
	t := p.peek()
	p.pos++
	return t
}

func (p *condParser) errorf(format string, args ...any) error {
	return &ParseError{Line: p.line, Msg: "condition: " + fmt.Sprintf(format, args...)}
}

func (p *condParser) parseOr(depth int) (Cond, error) {
	if depth > 100 {
		return nil, p.errorf("nested too deeply")
	}
	l, err := p.parseAnd(depth)
	if err != nil {
		return nil, err
	}
	for p.peek() == `\/` || p.peek() == "||" {
		p.next()
		r, err := p.parseAnd(depth)
		if err != nil {
			return nil, err
		}
		l = &binCond{false, l, r}
	}
	return l, nil
}

func (p *condParser) parseAnd(depth int) (Cond, error) {
	l, err := p.parseNot(depth)
	if err != nil {
		return nil, err
	}
	for p.peek() == `/\` || p.peek() == "&&" {
		p.next()
		r, err := p.parseNot(depth)
		if err != nil {
			return nil, err
		}
		l = &binCond{true, l, r}
	}
	return l, nil
}

func (p *condParser) parseNot(depth int) (Cond, error) {
	if depth > 100 {
		return nil, p.errorf("nested too deeply")
	}
	switch p.peek() {
	case "~", "not", "!":
		p.next()
		x, err := p.parseNot(depth + 1)
		if err != nil {
			return nil, err
		}
		return &notCond{x}, nil
	case "(":
		p.next()
		x, err := p.parseOr(depth + 1)
		if err != nil {
			return nil, err
		}
		if p.next() != ")" {
			return nil, p.errorf("missing )")
		}
		return x, nil
	case "true":
		p.next()
		return constCond(true), nil
	case "false":
		p.next()
		return constCond(false), nil
	}
	l, err := p.parseTerm()
	if err != nil {
		return nil, err
	}
	op := p.next()
	switch op {
	case "=":
		op = "=="
	case "==", "!=", "<", ">", "<=", ">=":
	default:
		return nil, p.errorf("expected a comparison after %s, found %q", l.text, op)
	}
	r, err := p.parseTerm()
	if err != nil {
		return nil, err
	}
	return &cmpCond{op, l, r}, nil
}

func (p *condParser) parseTerm() (Term, error) {
	t := p.next()
	if t == "" {
		return Term{}, p.errorf("unexpected end")
	}
	if p.peek() == ":" { // P1:r0, 1:r0
		p.next()
		reg := p.next()
		th := strings.TrimPrefix(strings.TrimPrefix(t, "P"), "p")
		n, err := strconv.Atoi(th)
		if err != nil || n < 0 || n >= len(p.prog.Threads) {
			return Term{}, p.errorf("unknown thread %q", t)
		}
		if !isRegName(reg) {
			return Term{}, p.errorf("bad register %q", reg)
		}
		return Term{Thread: n, Reg: reg, text: fmt.Sprintf("P%d:%s", n, reg)}, nil
	}
	if v, err := strconv.ParseInt(t, 0, 64); err == nil {
		return Term{Thread: -1, Val: v, text: t}, nil
	}
	if !isIdent(t) {
		return Term{}, p.errorf("unexpected %q", t)
	}
	return Term{Thread: -1, IsLoc: true, Loc: p.prog.addLoc(t), text: t}, nil
}

func isIdent(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isWordByte(s[i]) || s[i] == '.' {
			return false
		}
	}
	return true
}

// ParseCond parses a condition formula for prog.
func ParseCond(prog *Program, text string, line int) (Cond, error) {
	p := &condParser{toks: tokenizeCond(text), prog: prog, line: line}
	c, err := p.parseOr(0)
	if err != nil {
		return nil, err
	}
	if p.pos != len(p.toks) {
		return nil, p.errorf("unexpected %q", p.peek())
	}
	return c, nil
}

// checkCondRegs reports a register of the condition that its thread never
// names (not written, read or given an initial value): a misspelt name
// would otherwise read 0 in every outcome and decide the test wrongly.
// line is the condition's.
func (p *Program) checkCondRegs(line int) error {
	for _, t := range condTerms(p.Cond, nil) {
		if t.Thread < 0 {
			continue
		}
		th := &p.Threads[t.Thread]
		if !th.namesReg(t.Reg) {
			return &ParseError{Line: line, Msg: fmt.Sprintf("condition: %s: thread %s has no register %s (it neither writes, reads nor initialises it)", t.text, th.Name, t.Reg)}
		}
	}
	return nil
}

// namesReg reports whether the thread's code or initial state names reg.
func (t *Thread) namesReg(reg string) bool {
	if _, ok := t.RegInit[reg]; ok {
		return true
	}
	for _, in := range t.Code {
		if in.Dst == reg || in.BarID.Reg == reg {
			return true
		}
		for _, a := range in.Args {
			if a.Reg == reg {
				return true
			}
		}
	}
	return false
}
