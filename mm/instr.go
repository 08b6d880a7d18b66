package mm

import (
	"fmt"
	"strconv"
	"strings"
)

var semByName = map[string]Sem{"weak": Weak, "relaxed": Relaxed, "acquire": Acquire, "release": Release, "acq_rel": AcqRel, "sc": SC}

var scopeByName = map[string]Scope{"cta": ScopeCTA, "cluster": ScopeCluster, "gpu": ScopeGPU, "sys": ScopeSys}

var cmpByOp = map[string]string{"beq": "eq", "bne": "ne", "blt": "lt", "bgt": "gt", "ble": "le", "bge": "ge"}

var rmwOps = map[string]bool{"add": true, "sub": true, "exch": true, "cas": true, "mul": true, "div": true, "and": true, "or": true, "xor": true, "min": true, "max": true, "inc": true, "dec": true}

// parseInstr parses one cell of an instruction row.
func parseInstr(prog *Program, s string) (Instr, error) {
	if strings.HasSuffix(s, ":") && isIdent(strings.TrimSuffix(s, ":")) {
		return Instr{Op: OpLabel, Label: strings.TrimSuffix(s, ":")}, nil
	}
	opcode, rest, _ := strings.Cut(s, " ")
	var args []string
	if rest = strings.TrimSpace(rest); rest != "" {
		for _, a := range strings.Split(rest, ",") {
			args = append(args, strings.TrimSpace(a))
		}
	}
	parts := strings.Split(opcode, ".")
	in := Instr{}
	switch parts[0] {
	case "goto":
		if len(args) != 1 || !isIdent(args[0]) {
			return in, fmt.Errorf("goto needs a label")
		}
		return Instr{Op: OpGoto, Label: args[0]}, nil
	case "beq", "bne", "blt", "bgt", "ble", "bge":
		if len(args) != 3 || !isIdent(args[2]) {
			return in, fmt.Errorf("%s needs two operands and a label", parts[0])
		}
		a, err1 := parseOperand(args[0])
		b, err2 := parseOperand(args[1])
		if err1 != nil || err2 != nil {
			return in, fmt.Errorf("bad branch operands in %q", s)
		}
		return Instr{Op: OpBranch, Cmp: cmpByOp[parts[0]], Args: []Operand{a, b}, Label: args[2]}, nil
	case "add", "sub", "mul", "div":
		return parseArith(parts[0], args)
	case "ld", "suld", "tld", "cold":
		return parseLoad(prog, parts, args)
	case "st", "sust":
		return parseStore(prog, parts, args)
	case "atom", "red":
		return parseRMW(prog, parts, args)
	case "fence":
		return parseFence(parts)
	case "bar":
		return parseBar(parts, args)
	case "mbarrier", "cp":
		return parseAsync(prog, parts, args)
	}
	return in, fmt.Errorf("unknown instruction %q", opcode)
}

func parseOperand(s string) (Operand, error) {
	if isRegName(s) {
		return Operand{Reg: s}, nil
	}
	v, err := strconv.ParseInt(s, 0, 64)
	if err != nil {
		return Operand{}, fmt.Errorf("bad operand %q", s)
	}
	return Operand{Val: v}, nil
}

func parseArith(op string, args []string) (Instr, error) {
	if len(args) != 3 || !isRegName(args[0]) {
		return Instr{}, fmt.Errorf("%s needs a destination register and two operands", op)
	}
	a, err1 := parseOperand(args[1])
	b, err2 := parseOperand(args[2])
	if err1 != nil || err2 != nil {
		return Instr{}, fmt.Errorf("bad %s operands", op)
	}
	return Instr{Op: OpArith, RMW: op, Dst: args[0], Args: []Operand{a, b}}, nil
}

// semScope reads the optional sem and scope qualifiers. A strong operation
// needs a scope (§9.7.9.11); weak takes none.
//
// .volatile is .relaxed.sys (§8.4.2); .mmio, which requires .relaxed.sys,
// is read as that strong access (§8.4.1: its extra guarantees, no merging
// and no caching, do not change which values a test can observe).
func semScope(quals []string, def Sem) (Sem, Scope, []string, error) {
	sem, scope := def, NoScope
	i := 0
	if len(quals) > 0 && quals[0] == "volatile" {
		return Relaxed, ScopeSys, quals[1:], nil
	}
	if len(quals) > 0 && quals[0] == "mmio" {
		if len(quals) < 3 || quals[1] != "relaxed" || quals[2] != "sys" {
			return 0, 0, nil, fmt.Errorf(".mmio requires .relaxed.sys")
		}
		return Relaxed, ScopeSys, quals[3:], nil
	}
	if i < len(quals) {
		if s, ok := semByName[quals[i]]; ok {
			sem = s
			i++
		}
	}
	if i < len(quals) {
		if s, ok := scopeByName[quals[i]]; ok {
			scope = s
			i++
		}
	}
	if sem == Weak && scope != NoScope {
		return 0, 0, nil, fmt.Errorf(".weak takes no scope")
	}
	if sem != Weak && scope == NoScope {
		scope = ScopeGPU // strong operations default to .gpu (§8.5)
	}
	return sem, scope, quals[i:], nil
}

func loadProxy(op string) Proxy {
	switch op {
	case "suld", "sust":
		return Surface
	case "tld":
		return Texture
	case "cold":
		return Constant
	}
	return Generic
}

func parseLoad(prog *Program, parts, args []string) (Instr, error) {
	if len(args) != 2 || !isRegName(args[0]) {
		return Instr{}, fmt.Errorf("%s needs a register and a location", parts[0])
	}
	if parts[0] == "ld" && len(parts) == 1 { // ld rN, imm: a move
		v, err := parseOperand(args[1])
		if err != nil || v.Reg != "" {
			if isIdent(args[1]) {
				return Instr{}, fmt.Errorf("ld from memory needs a semantics qualifier (ld.weak)")
			}
			return Instr{}, fmt.Errorf("bad operand %q", args[1])
		}
		return Instr{Op: OpMove, Dst: args[0], Args: []Operand{v}}, nil
	}
	sem, scope, rest, err := semScope(parts[1:], Weak)
	if err != nil {
		return Instr{}, err
	}
	if len(rest) > 0 || sem == Release || sem == AcqRel || sem == SC {
		return Instr{}, fmt.Errorf("bad load qualifiers .%s", strings.Join(parts[1:], "."))
	}
	if !isIdent(args[1]) {
		return Instr{}, fmt.Errorf("bad location %q", args[1])
	}
	prog.addLoc(args[1])
	return Instr{Op: OpLoad, Sem: sem, Scope: scope, Proxy: loadProxy(parts[0]), Dst: args[0], Loc: args[1]}, nil
}

func parseStore(prog *Program, parts, args []string) (Instr, error) {
	if len(parts) > 1 && parts[1] == "async" {
		return parseAsync(prog, parts, args)
	}
	if len(args) != 2 || !isIdent(args[0]) {
		return Instr{}, fmt.Errorf("%s needs a location and a value", parts[0])
	}
	sem, scope, rest, err := semScope(parts[1:], Weak)
	if err != nil {
		return Instr{}, err
	}
	if len(rest) > 0 || sem == Acquire || sem == AcqRel || sem == SC {
		return Instr{}, fmt.Errorf("bad store qualifiers .%s", strings.Join(parts[1:], "."))
	}
	v, err := parseOperand(args[1])
	if err != nil {
		return Instr{}, err
	}
	prog.addLoc(args[0])
	return Instr{Op: OpStore, Sem: sem, Scope: scope, Proxy: loadProxy(parts[0]), Loc: args[0], Args: []Operand{v}}, nil
}

func parseRMW(prog *Program, parts, args []string) (Instr, error) {
	sem, scope, rest, err := semScope(parts[1:], Relaxed)
	if err != nil {
		return Instr{}, err
	}
	if sem == Weak || sem == SC || len(rest) != 1 || !rmwOps[rest[0]] {
		return Instr{}, fmt.Errorf("bad %s qualifiers .%s", parts[0], strings.Join(parts[1:], "."))
	}
	in := Instr{Op: OpRMW, Sem: sem, Scope: scope, RMW: rest[0]}
	if parts[0] == "atom" {
		if len(args) < 1 || !isRegName(args[0]) {
			return in, fmt.Errorf("atom needs a destination register")
		}
		in.Dst, args = args[0], args[1:]
	} else if rest[0] == "cas" || rest[0] == "exch" {
		return in, fmt.Errorf("red has no .%s", rest[0])
	}
	want := 2
	if rest[0] == "cas" {
		want = 3
	}
	if len(args) != want || !isIdent(args[0]) {
		return in, fmt.Errorf("%s.%s needs a location and %d operand(s)", parts[0], rest[0], want-1)
	}
	in.Loc = args[0]
	prog.addLoc(in.Loc)
	for _, a := range args[1:] {
		v, err := parseOperand(a)
		if err != nil {
			return in, err
		}
		in.Args = append(in.Args, v)
	}
	return in, nil
}

func parseFence(parts []string) (Instr, error) {
	if len(parts) == 3 && parts[1] == "proxy" {
		if parts[2] == "alias" {
			return Instr{Op: OpFence, Fence: FenceAlias}, nil
		}
		if px, ok := proxyByName[parts[2]]; ok && px != Generic {
			return Instr{Op: OpFence, Fence: FenceProxy, Proxy: px}, nil
		}
		return Instr{}, fmt.Errorf("unknown proxy fence .%s", parts[2])
	}
	if len(parts) == 3 {
		sc, ok := scopeByName[parts[2]]
		switch {
		case !ok:
		case parts[1] == "sc":
			return Instr{Op: OpFence, Fence: FenceSC, Sem: SC, Scope: sc}, nil
		case parts[1] == "acq_rel":
			return Instr{Op: OpFence, Fence: FenceAcqRel, Sem: AcqRel, Scope: sc}, nil
		}
	}
	return Instr{}, fmt.Errorf("unknown fence %q", strings.Join(parts, "."))
}

// parseBar reads bar.cta.sync I[, id[, count]] and bar.cta.arrive with the
// same operands. I is the static instance number of the Dat3M dialect.
func parseBar(parts, args []string) (Instr, error) {
	if len(parts) != 3 || parts[1] != "cta" || parts[2] != "sync" && parts[2] != "arrive" {
		return Instr{}, fmt.Errorf("unknown barrier %q", strings.Join(parts, "."))
	}
	if len(args) < 1 || len(args) > 3 {
		return Instr{}, fmt.Errorf("bar needs an instance number, an optional id and count")
	}
	in := Instr{Op: OpBar, Arrive: parts[2] == "arrive", Scope: ScopeCTA}
	n, err := strconv.Atoi(args[0])
	if err != nil {
		return in, fmt.Errorf("bad barrier instance %q", args[0])
	}
	in.BarIns = n
	if len(args) > 1 {
		if in.BarID, err = parseOperand(args[1]); err != nil {
			return in, err
		}
	}
	if len(args) > 2 {
		if in.BarCnt, err = strconv.Atoi(args[2]); err != nil || in.BarCnt < 1 || in.BarCnt > 1024 {
			return in, fmt.Errorf("bad barrier count %q", args[2])
		}
	}
	return in, nil
}
