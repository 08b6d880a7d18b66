package emu

import (
	"bufio"
	"fmt"
	"github.com/ptxkit/ptxkit/internal/testref"
	"github.com/ptxkit/ptxkit/isa"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/emu/tmem"
	"github.com/ptxkit/ptxkit/ptx/parser"
)

// tmemCorpusPath is the shared store-family corpus (../shared from the
// project's root).
var tmemCorpusPath = testref.Path("corpus", "stores.tsv")

var tmemAddrOperand = regexp.MustCompile(`\[\s*(%r\d+)\s*(\+\s*0\s*)?\]`)

// tmemCorpusKernel wraps one tcgen05.st or tcgen05.ld row of the corpus in a
// warpgroup kernel: warp 0 allocates all 512 columns, every thread points
// the row's address register at its warp's lane quarter and fills the
// other registers, the row runs, then waits and frees.
func tmemCorpusKernel(inst string) (string, bool) {
	m := tmemAddrOperand.FindStringSubmatch(inst)
	if m == nil {
		return "", false
	}
	wait := "tcgen05.wait::st.sync.aligned;"
	if strings.HasPrefix(inst, "tcgen05.ld") {
		wait = "tcgen05.wait::ld.sync.aligned;"
	}
	var fill strings.Builder
	for i := 1; i <= 130; i++ {
		fmt.Fprintf(&fill, "\tadd.u32 %%r%d, %%t0, %d;\n\tmov.b32 %%f%d, %%r%d;\n", i, i, i, i)
	}
	return fmt.Sprintf(`.version 8.6
.target sm_100a
.address_size 64
.entry k()
{
	.reg .b32 %%r<131>;
	.reg .f32 %%f<131>;
	.reg .b32 %%t<8>;
	.reg .pred %%p<2>;
	.shared .align 4 .b32 slot;
	mov.u32 %%t0, %%tid.x;
	shr.u32 %%t1, %%t0, 5;
	setp.eq.u32 %%p0, %%t1, 0;
	mov.u32 %%t2, slot;
	@%%p0 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%%t2], 512;
	bar.sync 0;
	ld.shared.b32 %%t3, [%%t2];
	shl.b32 %%t4, %%t1, 21;
%s	add.u32 %s, %%t3, %%t4;
	%s
	%s
	bar.sync 0;
	@%%p0 tcgen05.dealloc.cta_group::1.sync.aligned.b32 %%t3, 512;
	ret;
}
`, fill.String(), m[1], inst, wait), true
}

// TestTcgen05Corpus emulates every tcgen05.st and tcgen05.ld form of the
// shared corpus (CUTLASS, CCCL, ThunderKittens, TileLang, ...). Forms whose
// register vector matches Table 50 must run cleanly; the others must be
// rejected by the decoder.
func TestTcgen05Corpus(t *testing.T) {
	f, err := os.Open(tmemCorpusPath)
	if err != nil {
		t.Skipf("corpus not available: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	seen := map[string]bool{}
	ran, rejected := 0, 0
	for sc.Scan() {
		inst, _, _ := strings.Cut(sc.Text(), "\t")
		if !strings.HasPrefix(inst, "tcgen05.st.") && !strings.HasPrefix(inst, "tcgen05.ld.") || strings.HasPrefix(inst, "tcgen05.ld.red") || seen[inst] {
			continue
		}
		seen[inst] = true
		src, ok := tmemCorpusKernel(inst)
		if !ok {
			t.Errorf("%s: no [%%rN] address operand", inst)
			continue
		}
		valid := tmemTableForm(inst)
		mod, errs := parser.ParseString("corpus.ptx", src)
		if errs.HasErrors() {
			t.Errorf("%s: parse: %v", inst, errs)
			continue
		}
		p, errs := Decode(mod, "")
		if !valid {
			if !errs.HasErrors() {
				t.Errorf("%s: register count off Table 50, but decoded", inst)
			}
			rejected++
			continue
		}
		if errs.HasErrors() {
			t.Errorf("%s: decode: %v", inst, errs)
			continue
		}
		res, err := execute(p, Config{Block: [3]int{128, 1, 1}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Report != nil {
			t.Errorf("%s: %v", inst, res.Report)
		}
		ran++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d corpus forms emulated, %d rejected", ran, rejected)
	if ran < 200 {
		t.Errorf("only %d tcgen05.st/ld forms found in the corpus", ran)
	}
}

// tmemTableForm reports whether inst's register vector has the length Table 50
// gives its shape and .num.
func tmemTableForm(inst string) bool {
	op, _, _ := strings.Cut(inst, " ")
	quals := strings.Split(op, ".")[2:]
	for i := range quals {
		quals[i] = "." + quals[i]
	}
	f, err := tmem.FormOf(isa.LookupQuals(quals, nil), strings.HasPrefix(inst, "tcgen05.ld"))
	if err != nil {
		return false
	}
	open, close := strings.Index(inst, "{"), strings.Index(inst, "}")
	if open < 0 || close < open {
		return false
	}
	return len(strings.Split(inst[open+1:close], ",")) == f.Regs()
}

// TestTcgen05CorpusManagement decodes the corpus's other tcgen05 forms
// (alloc, dealloc, relinquish_alloc_permit, commit, fences, waits): all
// decode, except those whose ctaMask is a name ("lo") the snippet does not
// declare.
func TestTcgen05CorpusManagement(t *testing.T) {
	f, err := os.Open(tmemCorpusPath)
	if err != nil {
		t.Skipf("corpus not available: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	seen := map[string]bool{}
	for sc.Scan() {
		inst, _, _ := strings.Cut(sc.Text(), "\t")
		if !strings.HasPrefix(inst, "tcgen05.") || strings.HasPrefix(inst, "tcgen05.st.") || strings.HasPrefix(inst, "tcgen05.ld.") || seen[inst] {
			continue
		}
		seen[inst] = true
		src := ".version 8.6\n.target sm_100a\n.address_size 64\n.entry k()\n{\n\t.reg .b32 %r<4>;\n\t.reg .b16 %rs<4>;\n\t.reg .b64 %rd<4>;\n\t" + inst + "\n\tret;\n}\n"
		m, errs := parser.ParseString("corpus.ptx", src)
		if errs.HasErrors() {
			t.Errorf("%s: parse: %v", inst, errs)
			continue
		}
		_, errs = Decode(m, "")
		if strings.HasSuffix(inst, ", lo;") {
			if !errs.HasErrors() || !strings.Contains(errs[0].Message, "lo") {
				t.Errorf("%s: want a diagnostic about the undeclared lo, got %v", inst, errs)
			}
			continue
		}
		if errs.HasErrors() {
			t.Errorf("%s: %v", inst, errs)
		}
	}
	if len(seen) < 15 {
		t.Errorf("only %d tcgen05 management forms in the corpus", len(seen))
	}
}
