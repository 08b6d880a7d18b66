package emu

import (
	"bufio"
	"github.com/ptxkit/ptxkit/internal/testref"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/parser"
)

// corpusKernel wraps one instruction in a kernel that declares every
// register and symbol it names (registers as wide vectors, symbols as
// shared arrays), so that the decoder sees the instruction as real code
// would present it.
func corpusKernel(inst string) (string, bool) {
	probe := header + ".visible .entry k() {\n\t" + inst + "\n\tret;\n}\n"
	m, errs := parser.ParseString("probe.ptx", probe)
	if errs.HasErrors() {
		return "", false
	}
	regs, syms := map[string]bool{}, map[string]bool{}
	vregs := map[string]string{}
	for _, s := range m.Stmts {
		f, ok := s.(*ast.Function)
		if !ok || f.Body == nil {
			continue
		}
		for _, st := range f.Body.Stmts {
			in, ok := st.(*ast.Instruction)
			if !ok {
				continue
			}
			if in.Guard != nil {
				regs[in.Guard.Reg.Name] = true
			}
			for i, op := range in.Operands {
				if id, ok := op.(*ast.Ident); ok && i > 0 {
					// a data operand written without '%': a register; a
					// whole vector register when the instruction is .vN
					vec := ""
					for _, q := range in.Quals {
						if strings.HasPrefix(q.Name, ".v") && len(q.Name) == 3 {
							vec = q.Name + " "
						}
					}
					vregs[id.Name] = vec
					continue
				}
				collectNames(op, regs, syms)
			}
		}
	}
	var b strings.Builder
	b.WriteString(header + ".visible .entry k() {\n")
	for _, r := range sortedKeys(regs) {
		b.WriteString("\t.reg .v4 .b128 " + r + ";\n")
	}
	for _, r := range sortedKeys2(vregs) {
		v := vregs[r]
		if v == "" {
			v = ".v4 "
		}
		b.WriteString("\t.reg " + v + ".b128 " + r + ";\n")
	}
	for _, s := range sortedKeys(syms) {
		b.WriteString("\t.shared .align 16 .b8 " + s + "[256];\n")
	}
	b.WriteString("\t" + inst + "\n\tret;\n}\n")
	return b.String(), true
}

func collectNames(e ast.Expr, regs, syms map[string]bool) {
	switch x := e.(type) {
	case *ast.Reg:
		if isa.LookupSReg(x.Name) == nil {
			regs[x.Name] = true
		}
	case *ast.Ident:
		syms[x.Name] = true
	case *ast.Address:
		if x.Base != nil {
			collectNames(x.Base, regs, syms)
		}
	case *ast.VectorExpr:
		for _, y := range x.Elems {
			collectNames(y, regs, syms)
		}
	case *ast.IndexExpr:
		collectNames(x.X, regs, syms)
	case *ast.BinaryExpr:
		collectNames(x.X, regs, syms)
		collectNames(x.Y, regs, syms)
	case *ast.UnaryExpr:
		collectNames(x.X, regs, syms)
	}
}

func sortedKeys2(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestCorpusStoresDecode lowers every plain st form and every m8n8
// stmatrix form of the shared corpus (public GPU code) into the emulator. st.async, st.bulk, tcgen05 and the
// like belong to other decoders and are counted separately.
func TestCorpusStoresDecode(t *testing.T) {
	f, err := os.Open(testref.Path("corpus", "stores.tsv"))
	if err != nil {
		t.Skip("corpus not available:", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	total, ok := 0, 0
	var failures []string
	for sc.Scan() {
		inst := strings.SplitN(sc.Text(), "\t", 2)[0]
		stm := strings.HasPrefix(inst, "stmatrix") && strings.Contains(inst, ".m8n8")
		if !strings.HasPrefix(inst, "st.") && !strings.HasPrefix(inst, "st ") && !stm {
			continue
		}
		if strings.HasPrefix(inst, "st.async") || strings.HasPrefix(inst, "st.bulk") {
			continue
		}
		src, parsed := corpusKernel(inst)
		if !parsed {
			continue // not valid PTX on its own (macros, templates)
		}
		total++
		m, _ := parser.ParseString("corpus.ptx", src)
		if _, errs := Decode(m, ""); errs.HasErrors() {
			if strings.Contains(inst, ".v3.") {
				continue // .v3 is not a PTX vector length; the decoder rejects it
			}
			failures = append(failures, inst+": "+errs[0].Message)
			continue
		}
		ok++
	}
	t.Logf("decoded %d of %d corpus st forms", ok, total)
	for _, f := range failures {
		t.Errorf("%s", f)
	}
	if total < 600 {
		t.Errorf("only %d corpus st forms parsed", total)
	}
}
