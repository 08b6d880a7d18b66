package check

import (
	"bufio"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/parser"
	"github.com/ptxkit/ptxkit/ptx/resolve"
	"github.com/ptxkit/ptxkit/ptx/token"
)

// agreeConfigs are the overrides every agreement test tries.
var agreeConfigs = []Config{{}, {PTX: "8.0"}, {Target: "sm_80"}, {PTX: "7.0", Target: "sm_100a"}, {Target: "sm_9z"}, {PTX: "x"}}

// streamed checks m with a Checker fed in source order.
func streamed(m *ast.Module, cfg Config) diag.List {
	c := NewChecker(m.Filename, cfg)
	for _, s := range m.Stmts {
		c.Add(s)
	}
	c.End()
	return c.Diagnostics()
}

// fromStream parses src as a stream (recycling function bodies with
// parser.ReuseBodies) and feeds a Checker; with poisonBodies it also
// overwrites every node of each function body after Add, so that any
// reference the Checker kept into it would change what it reports.
func fromStream(name, src string, cfg Config, mode parser.Mode, poisonBodies bool) diag.List {
	st := parser.NewStream(name, src, mode)
	c := NewChecker(name, cfg)
	for s := st.Next(); s != nil; s = st.Next() {
		c.Add(s)
		if fn, ok := s.(*ast.Function); ok && fn.Body != nil && poisonBodies {
			poison(fn.Body)
		}
	}
	c.End()
	return c.Diagnostics()
}

// poison overwrites the names, spellings and positions under n.
func poison(n ast.Node) {
	bad := token.Pos{Offset: 1 << 30, Line: 1 << 20, Col: 1}
	ast.Inspect(n, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.Instruction:
			x.Opcode, x.OpPos, x.From = "poison", bad, bad
			for i := range x.Quals {
				x.Quals[i] = ast.Qual{Pos: bad, Name: ".poison"}
			}
		case *ast.Reg:
			x.Name, x.Comp, x.From = "%poison", "", bad
		case *ast.Ident:
			x.Name, x.From = "poison", bad
		case *ast.VarDecl:
			x.Space, x.Type, x.Count, x.From = ".poison", ".poison", 7, bad
		case *ast.IntLit:
			x.Value, x.Text, x.From = 12345, "12345", bad
		case *ast.Directive:
			x.Name, x.From = ".poison", bad
		case *ast.Label:
			x.Name, x.From = "poison", bad
		}
		return true
	})
}

// wellOrdered reports whether m writes its header directives and its
// module-scope variables before its first function definition, as real
// modules do (declarations may come first: LLVM writes the prototypes,
// then the variables that take their addresses, then the definitions).
func wellOrdered(m *ast.Module) bool {
	seenFn := false
	for _, s := range m.Stmts {
		switch s := s.(type) {
		case *ast.Function:
			seenFn = seenFn || s.Body != nil
		case *ast.VarDecl:
			if seenFn {
				return false
			}
		case *ast.Directive:
			if seenFn && (s.Name == ".version" || s.Name == ".target" || s.Name == ".address_size") {
				return false
			}
		}
	}
	return true
}

// agree checks that Module, a Checker fed in source order and a Checker
// fed by a stream (bodies recycled, or overwritten after Add) report the
// same diagnostics for src, under each of agreeConfigs (the streams only
// without overrides unless all is set).
func agree(t *testing.T, name, src string, all bool) {
	t.Helper()
	m, errs := parser.ParseString(name, src)
	if !wellOrdered(m) {
		t.Errorf("%s: a header directive or variable follows a function", name)
		return
	}
	for _, cfg := range agreeConfigs {
		want := Module(m, cfg)
		if got := streamed(m, cfg); !reflect.DeepEqual(got, want) {
			t.Errorf("%s %+v: Checker in source order:\n%v\nModule:\n%v", name, cfg, got, want)
		}
		if len(errs) > 0 || !all && cfg != (Config{}) {
			continue
		}
		if got := fromStream(name, src, cfg, parser.ReuseBodies, false); !reflect.DeepEqual(got, want) {
			t.Errorf("%s %+v: Checker on a stream with recycled bodies:\n%v\nModule:\n%v", name, cfg, got, want)
		}
		if got := fromStream(name, src, cfg, 0, true); !reflect.DeepEqual(got, want) {
			t.Errorf("%s %+v: Checker with bodies overwritten after Add:\n%v\nModule:\n%v", name, cfg, got, want)
		}
	}
}

func TestCheckerAgreesOnTestdata(t *testing.T) {
	var files []string
	err := filepath.WalkDir(filepath.Join("..", "testdata"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(path, ".ptx") || strings.HasSuffix(path, ".input")) {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 20 {
		t.Fatalf("only %d PTX files under testdata", len(files))
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		agree(t, f, string(src), true)
	}
}

func TestCheckerAgreesOnBenchModule(t *testing.T) {
	agree(t, "bench.ptx", benchModule(64<<10), true)
}

// TestCheckerAgreesOnCorpus wraps every instruction of the shared corpus
// (all families, not only stores) in the corpus test's kernel, at the
// row's stated minimum, one version and one target earlier, and a few
// fixed headers, one module each.
func TestCheckerAgreesOnCorpus(t *testing.T) {
	f, err := os.Open(corpusPath)
	if err != nil {
		t.Skipf("corpus not found: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	headers := [][2]string{{"8.5", "sm_90a"}, {"7.0", "sm_80"}, {"8.8", "sm_100a"}}
	kernels := 0
	for n := 1; sc.Scan(); n++ {
		cols := strings.Split(sc.Text(), "\t")
		if n == 1 || len(cols) < 5 {
			continue
		}
		row := corpusRow{line: n, instr: cols[0]}
		hs := headers
		if m := corpusMin.FindStringSubmatch(cols[3]); m != nil {
			hs = append(hs, [2]string{m[2], m[1]}, [2]string{previousVersion(m[2]), m[1]}, [2]string{m[2], previousTarget(m[1])})
		}
		for _, h := range hs {
			agree(t, "corpus.ptx", corpusKernel(row, h[0], h[1]), false)
			kernels++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if kernels < 3000 {
		t.Errorf("only %d corpus kernels", kernels)
	}
	t.Logf("%d corpus kernels agree", kernels)
}

// TestCheckerAgreesOnGenerated checks the modules of the ptxas
// differential test's generator (one module per batch of 400).
func TestCheckerAgreesOnGenerated(t *testing.T) {
	n := 4000
	if testing.Short() {
		n = 800
	}
	for _, batch := range genCases(1, n, "9.0") {
		var b strings.Builder
		b.WriteString(kernelHeader(batch[0].version, batch[0].target))
		for _, c := range batch {
			b.WriteString(c.line + "\n")
		}
		b.WriteString(kernelFooter)
		agree(t, "gen.ptx", b.String(), true)
	}
}

// TestCheckerOrder pins what a Checker fed in source order does with a
// module whose header directives and variables follow a function: they
// apply from where they are written, while Module applies them to the
// whole module.
func TestCheckerOrder(t *testing.T) {
	src := `.visible .entry early()
{
	.reg .b64 %rd<2>;
	.reg .b32 %r<2>;
	st.global.relaxed.cluster.u32 [%rd1], %r1;
	ret;
}
.version 7.0
.target sm_80
.address_size 64
.shared .b32 late;
.visible .entry after()
{
	.reg .b64 %rd<2>;
	.reg .b32 %r<2>;
	st.global.relaxed.cluster.u32 [%rd1], %r1;
	ret;
}
`
	m, errs := parser.ParseString("t.ptx", src)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if wellOrdered(m) {
		t.Fatal("wellOrdered = true")
	}
	rules := func(l diag.List) map[int32][]string {
		r := map[int32][]string{}
		for _, d := range l {
			r[d.Pos.Line] = append(r[d.Pos.Line], d.Rule)
		}
		return r
	}
	whole := rules(Module(m, Config{}))
	if len(whole[5]) != 2 || len(whole[16]) != 2 {
		t.Errorf("Module: the .cluster scope needs PTX 7.8 and sm_90 in both functions: %v", whole)
	}
	stream := rules(streamed(m, Config{}))
	if len(stream[5]) != 0 || len(stream[16]) != 2 {
		t.Errorf("Checker: version and target apply only after they are written: %v", stream)
	}
}

// TestCheckerDiagnosticsTwice checks that Diagnostics may be called at any
// point and that what it returned is not changed by later calls.
func TestCheckerDiagnosticsTwice(t *testing.T) {
	src := benchModule(1) + `.visible .entry bad()
{
	.reg .b64 %rd<2>;
	.reg .b32 %r<2>;
	st.global.relaxed.u32 [%rd1], %r1;
	ret;
}
`
	m, _ := parser.ParseString("t.ptx", src)
	c := NewChecker("t.ptx", Config{})
	var first diag.List
	for i, s := range m.Stmts {
		c.Add(s)
		if i == len(m.Stmts)-2 {
			first = c.Diagnostics()
			if len(first) != 0 {
				t.Fatalf("diagnostics before the bad function: %v", first)
			}
			first = append(first, diag.Diagnostic{Rule: "caller's"})
		}
	}
	l := c.Diagnostics()
	if len(l) != 1 || l[0].Rule != "st-sem-scope" {
		t.Errorf("Diagnostics = %v", l)
	}
	if !reflect.DeepEqual(l, Module(m, Config{})) {
		t.Errorf("Checker and Module differ")
	}
}

// TestCheckerDiagnosticsKept checks that a result of Diagnostics keeps its
// order when statements fed later (here out of source order) report at
// earlier positions.
func TestCheckerDiagnosticsKept(t *testing.T) {
	src := `.version 8.5
.target sm_9z
.address_size 64
.visible .entry k()
{
	.reg .b64 %rd<2>;
	.reg .b32 %r<2>;
	st.global.relaxed.u32 [%rd1], %r1;
	st.global.sys.u32 [%rd1], %r1;
	ret;
}
`
	m, errs := parser.ParseString("t.ptx", src)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	c := NewChecker("t.ptx", Config{})
	c.Add(m.Stmts[3])
	first := c.Diagnostics()
	kept := slices.Clone(first)
	c.Add(m.Stmts[1]) // the bad target, written before the function
	all := c.Diagnostics()
	if !reflect.DeepEqual(first, kept) {
		t.Errorf("an earlier result changed:\n%v\nwas\n%v", first, kept)
	}
	if len(all) != len(first)+1 || all[0].Rule != "target" || !sortedByPosition(all) {
		t.Errorf("Diagnostics = %v", all)
	}
}

// TestOperandMemo checks that an instruction found clean for one set of
// register types or constants is still checked for another: the
// clean-signature memo (decoded.clean) must never hide an error, however
// the spellings repeat.
func TestOperandMemo(t *testing.T) {
	for _, tc := range []struct {
		body, rule string
		lines      []int32
	}{
		{`	add.s32 %r1, %r2, %r3;
	add.s32 %r1, %rd2, %r3;
	add.s32 %r1, %r2, %r3;
	add.s32 %r1, %r2, %f3;
	add.s32 %r1, %rd2, %r3;
	add.s32 %r1, %r2, %r3;
	add.s32 %r1, %r2, %f3;`, "operand-type", []int32{11, 13, 14, 16}},
		{`	bar.sync 0;
	bar.sync 16;
	bar.sync 0;
	bar.sync 16;`, "operand-range", []int32{11, 13}},
		{`	ld.global.u32 %r1, [%rd1];
	ld.global.u32 %r1, [%f1+4];
	ld.global.u32 %r1, [%rd1+4];
	ld.global.u32 %r1, [%f1];`, "address-register-type", []int32{11, 13}},
		{`	.local .u32 lv;
	.param .u32 pv;
	ld.u32 %r1, [lv];
	ld.u32 %r1, [pv];
	ld.u32 %r1, [lv+4];
	ld.u32 %r1, [pv];`, "operand-address", []int32{13, 15}},
		{`	mov.u32 %r1, %tid.x;
	mov.u32 %r1, %tid;
	mov.u32 %r1, %ntid.y;
	mov.u32 %r1, %ntid;`, "operand-kind", []int32{11, 13}},
		{`	mov.u32 %r1, %tid.x;
	mov.u32 %r1, %ntid.y;
	mov.u32 %r1, %ctaid.z;
	mov.u32 %r1, %nctaid.x;
	mov.u32 %r1, %laneid;
	mov.u32 %r1, %tid;
	mov.u32 %r1, %tid.x;
	mov.u32 %r1, %ntid;`, "operand-kind", []int32{15, 17}},
		{`	ld.global.v4.f32 {%f0, %f1, %f2, %f3}, [%rd1];
	ld.global.v4.f32 {%p0, %p1, %p2, %p3}, [%rd1];
	ld.global.v4.f32 {%f3, %f2, %f1, %f0}, [%rd1+16];
	ld.global.v4.f32 {%p3, %p2, %p1, %p0}, [%rd1];`, "operand-type", []int32{11, 11, 11, 11, 13, 13, 13, 13}},
		{`	ld.global.v2.f32 {%f0, %f1}, [%rd1];
	ld.global.v2.f32 {%f0, %f1, %f2, %f3}, [%rd1];
	ld.global.v2.f32 {%f2, %f3}, [%rd1];
	ld.global.v2.f32 {%f1, %f2, %f3, %f0}, [%rd1];`, "operand-vector", []int32{11, 13}},
		{`	mov.u64 %rd1, %clock64;
	mov.u64 %rd1, %clock;
	mov.u64 %rd1, %clock64;
	mov.u64 %rd1, %clock;`, "operand-type", []int32{11, 13}},
		{`	setp.eq.s32 %p1, %r1, %r2;
	setp.eq.s32 %r1, %r1, %r2;
	setp.eq.s32 %p2, %r1, %r2;
	setp.eq.s32 %r1, %r1, %r2;`, "operand-type", []int32{11, 13}},
	} {
		src := ".version 8.5\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n" +
			"\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<4>;\n\t.reg .f32 %f<4>;\n\t.reg .pred %p<4>;\n" + tc.body + "\n\tret;\n}\n"
		m, errs := parser.ParseString("t.ptx", src)
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		var lines []int32
		for _, d := range Module(m, Config{}) {
			if d.Rule != tc.rule {
				t.Errorf("unexpected %v", d)
			}
			lines = append(lines, d.Pos.Line)
		}
		if !slices.Equal(lines, tc.lines) {
			t.Errorf("%s errors on lines %v, want %v", tc.rule, lines, tc.lines)
		}
	}
}

// TestDecodeRecentWays checks that two spellings whose names meet in one
// set of the decode cache's recent slots both stay there when a function
// alternates them: neither evicts the other and falls back to the map.
func TestDecodeRecentWays(t *testing.T) {
	a, b := "ld.shared.f32", "st.global.cs.f32"
	_, _, sa := recentKey(a)
	_, _, sb := recentKey(b)
	if sa != sb {
		t.Fatalf("%s and %s are in sets %d and %d; the test wants two names of one set", a, b, sa, sb)
	}
	src := ".version 8.5\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n" +
		"\t.reg .b32 %r<4>;\n\t.reg .f32 %f<4>;\n\t.reg .b64 %rd<4>;\n" +
		"\tld.shared.f32 %f1, [%r1];\n\tst.global.cs.f32 [%rd1], %f1;\n\tret;\n}\n"
	m, errs := parser.ParseString("t.ptx", src)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	body := m.Stmts[3].(*ast.Function).Body.Stmts
	ld, st := body[3].(*ast.Instruction), body[4].(*ast.Instruction)
	c := &checker{file: m.Filename, res: resolve.NewResolver(m.Filename)}
	c.header(m, Config{})
	for range 3 {
		c.decode(ld)
		c.decode(st)
	}
	held := map[string]bool{}
	for _, r := range c.cache.recent[sa : sa+2] {
		held[r.name] = true
	}
	if !held[a] || !held[b] {
		t.Errorf("set %d holds %q and %q, want %s and %s", sa, c.cache.recent[sa].name, c.cache.recent[sa+1].name, a, b)
	}
}

// TestOperandMemoUnseen checks that the clean-signature memo never
// changes a verdict: random instructions of every class, valid and
// mutated (the generator of the ptxas differential test), each written
// twice in a shuffled order so that spellings repeat with other
// operands, get the same diagnostics with the memo as without it.
func TestOperandMemoUnseen(t *testing.T) {
	n := 6000
	if testing.Short() {
		n = 900
	}
	r := rand.New(rand.NewPCG(7, 11))
	hits := 0
	for _, b := range opBatches(3, n, "9.0", "") {
		lines := make([]string, 0, 2*len(b.cases))
		for _, c := range b.cases {
			lines = append(lines, c.line, c.line)
		}
		r.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
		src := opKernelHeader(b.version, b.target) + strings.Join(lines, "\n") + "\n" + kernelFooter
		m, errs := parser.ParseString("k.ptx", src)
		if len(errs) > 0 {
			continue // lines the parser rejects say nothing of the memo
		}
		with := Module(m, Config{})
		noOperandMemo = true
		without := Module(m, Config{})
		noOperandMemo = false
		if !reflect.DeepEqual(with, without) {
			t.Fatalf("PTX %s %s: the memo changed the diagnostics:\nwith    %v\nwithout %v", b.version, b.target, with, without)
		}
		hits++
	}
	if hits < n/300/2 {
		t.Fatalf("only %d batches parsed", hits)
	}
}
