package check

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/ptx/parser"
)

// The tensor-core and tensor-map instructions (mma, mma.sp, wmma,
// wgmma.mma_async, ldmatrix, stmatrix, cp.async.bulk.prefetch.tensor,
// multimem, tensormap) are enumerated here: every shape against every type
// combination, layout and operand variant, valid or not. ptxas 12.5 decided
// each case once (PTXKIT_UPDATE_TENSOR=1 writes testdata/tensor_forms.txt);
// TestTensorFormsRecorded holds the checker to those verdicts without
// ptxas, and TestTensorFormsPtxas asks ptxas again where it is installed.

const tensorVerdicts = "testdata/tensor_forms.txt"

// tensorCase is one instruction of the enumeration: the target and PTX
// version it is checked for, and its text.
type tensorCase struct {
	version, target, inst string
}

func (c tensorCase) key() string { return c.version + " " + c.target + " " + c.inst }

// regList is "{%pN, %pN+1, ...}" of n registers from N = 0.
func regList(p string, n int) string {
	if n <= 0 {
		n = 1
	}
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%%%s%d", p, i)
	}
	b.WriteString("}")
	return b.String()
}

// fragReg is the register prefix of a fragment of element type t.
func fragReg(t string) string {
	switch t {
	case "f32":
		return "f"
	case "f64":
		return "fd"
	}
	return "r"
}

// typeBits is the width of a tensor-core element type.
func typeBits(t string) int {
	switch t {
	case "f64":
		return 64
	case "f32", "tf32", "s32":
		return 32
	case "f16", "bf16":
		return 16
	case "e4m3", "e5m2", "s8", "u8":
		return 8
	case "s4", "u4":
		return 4
	}
	return 1
}

// fragRegs is the number of registers of a fragment holding elems elements
// of type t per thread.
func fragRegs(t string, elems int) int {
	if t == "f64" {
		return elems
	}
	return max(1, elems*typeBits(t)/32)
}

var wgmmaTypes = [][3]string{
	{"f16", "f16", "f16"}, {"f32", "f16", "f16"}, {"f32", "bf16", "bf16"}, {"f32", "tf32", "tf32"},
	{"f16", "e4m3", "e4m3"}, {"f32", "e4m3", "e5m2"}, {"f32", "e5m2", "e4m3"}, {"f16", "e5m2", "e5m2"},
	{"s32", "s8", "s8"}, {"s32", "u8", "s8"}, {"s32", "s8", "u8"}, {"s32", "u8", "u8"}, {"s32", "b1", "b1"},
}

// wgmmaCases enumerates wgmma.mma_async: every N from 8 to 256 by 8 with
// every k, every type combination, A from a descriptor or from registers.
func wgmmaCases() []tensorCase {
	var out []tensorCase
	for _, sparse := range []bool{false, true} {
		for _, ty := range wgmmaTypes {
			for _, k := range []int{8, 16, 32, 64, 256} {
				for n := 8; n <= 256; n += 8 {
					for _, regA := range []bool{false, true} {
						if inst := wgmmaLine(ty, n, k, sparse, regA); inst != "" {
							out = append(out, tensorCase{"8.5", "sm_90a", inst})
						}
					}
				}
			}
		}
	}
	return out
}

func wgmmaLine(ty [3]string, n, k int, sparse, regA bool) string {
	if ty[1] == "b1" && (regA || sparse) {
		return ""
	}
	name := "wgmma.mma_async"
	if sparse {
		name += ".sp"
	}
	q := fmt.Sprintf("%s.sync.aligned.m64n%dk%d", name, n, k)
	if ty[0] == "s32" && n%16 == 8 && n > 24 && k%2 == 0 {
		q += ".satfinite" // a valid qualifier on an invalid shape
	}
	q += "." + strings.Join(ty[:], ".")
	if ty[1] == "b1" {
		q += ".and.popc"
	}
	d := regList(fragReg(ty[0]), n*64/128*typeBits(ty[0])/32)
	if ty[0] == "s32" {
		d = regList("r", n/2)
	}
	a := "%rd1"
	if regA {
		a = regList("r", 4)
	}
	ops := []string{d, a, "%rd2"}
	if sparse {
		ops = append(ops, "%r200", "0")
	}
	ops = append(ops, "%p1")
	switch ty[1] {
	case "f16", "bf16":
		ops = append(ops, "1", "-1")
		if !regA {
			ops = append(ops, "0")
		}
		ops = append(ops, "1")
	case "tf32", "e4m3", "e5m2":
		ops = append(ops, "1", "1")
	}
	return q + " " + strings.Join(ops, ", ") + ";"
}

var mmaShapes = []string{"m8n8k4", "m16n8k4", "m16n8k8", "m16n8k16", "m8n8k16", "m16n8k32", "m8n8k32", "m16n8k64", "m8n8k128", "m16n8k128", "m16n8k256"}

var mmaTypes = [][4]string{
	{"f16", "f16", "f16", "f16"}, {"f32", "f16", "f16", "f32"}, {"f16", "f16", "f16", "f32"}, {"f32", "f16", "f16", "f16"},
	{"f32", "bf16", "bf16", "f32"}, {"f32", "tf32", "tf32", "f32"}, {"f64", "f64", "f64", "f64"},
	{"f32", "e4m3", "e4m3", "f32"}, {"f32", "e5m2", "e4m3", "f32"}, {"f16", "e4m3", "e4m3", "f16"},
	{"s32", "s8", "s8", "s32"}, {"s32", "u8", "s8", "s32"}, {"s32", "s4", "u4", "s32"}, {"s32", "u4", "u4", "s32"},
	{"s32", "b1", "b1", "s32"},
}

// mmaCases enumerates mma and mma.sp: every shape, type combination and
// layout, on sm_90a and on sm_80.
func mmaCases() []tensorCase {
	var out []tensorCase
	for _, tg := range []string{"sm_90a", "sm_80"} {
		for _, sp := range []string{"", ".sp", ".sp::ordered_metadata"} {
			for _, sh := range mmaShapes {
				for _, ty := range mmaTypes {
					for _, lay := range []string{".row.col", ".col.row", ".row.row"} {
						if lay != ".row.col" && (sp != "" || sh != "m8n8k4" && sh != "m16n8k16") {
							continue
						}
						for _, sat := range []string{"", ".satfinite"} {
							if sat != "" && ty[1] != "s8" && ty[1] != "s4" && ty[1] != "f16" {
								continue
							}
							out = append(out, tensorCase{"8.5", tg, mmaLine(sh, ty, sp, lay, sat)})
						}
					}
				}
			}
		}
	}
	return out
}

func shapeMNK(sh string) (m, n, k int) {
	fmt.Sscanf(sh, "m%dn%dk%d", &m, &n, &k)
	return
}

func mmaLine(sh string, ty [4]string, sp, lay, sat string) string {
	m, n, k := shapeMNK(sh)
	q := "mma" + sp + ".sync.aligned." + sh + lay + sat + "." + strings.Join(ty[:], ".")
	if ty[1] == "b1" {
		q += ".xor.popc"
	}
	ka := k
	if sp != "" {
		ka = k / 2
	}
	na, nb, nc := fragRegs(ty[1], m*ka/32), fragRegs(ty[2], k*n/32), fragRegs(ty[3], m*n/32)
	nd := fragRegs(ty[0], m*n/32)
	if sh == "m8n8k4" && ty[1] == "f16" { // quad-pair fragments (Volta)
		na, nb, nc, nd = 2, 2, 8*typeBits(ty[3])/32, 8*typeBits(ty[0])/32
	}
	ops := []string{regList(fragReg(ty[0]), nd), regList("r", na), regList("r", nb), regList(fragReg(ty[3]), nc)}
	if ty[1] == "f64" {
		ops[1], ops[2] = regList("fd", na), regList("fd", nb)
	}
	if sp != "" {
		ops = append(ops, "%r200", "0")
	}
	return q + " " + strings.Join(ops, ", ") + ";"
}

// wmmaFrag is the number of registers of a wmma fragment (the counts ptxas
// requires; the PTX ISA leaves the layout to the implementation).
func wmmaFrag(sh, ty, frag string) int {
	switch ty {
	case "f16":
		if frag == "c" || frag == "d" {
			return 4
		}
		return 8
	case "f32", "s32":
		if sh == "m8n8k32" || sh == "m8n8k128" {
			return 2
		}
		return 8
	case "f64":
		if frag == "c" || frag == "d" {
			return 2
		}
		return 1
	case "tf32":
		return 4
	case "s4", "u4", "b1":
		return 1
	}
	m, n, k := shapeMNK(sh)
	el := m * k
	if frag == "b" {
		el = k * n
	}
	return max(1, el/32*typeBits(ty)/32)
}

var wmmaShapes = []string{"m16n16k16", "m8n32k16", "m32n8k16", "m16n16k8", "m8n8k4", "m8n8k32", "m8n8k128"}

// wmmaCases enumerates wmma.load, wmma.store and wmma.mma: every shape,
// layout, type and state space.
func wmmaCases() []tensorCase {
	var out []tensorCase
	add := func(s string) { out = append(out, tensorCase{"8.5", "sm_90a", s}) }
	for _, sh := range wmmaShapes {
		for _, lay := range []string{"row", "col"} {
			for _, ss := range []string{"", ".global", ".shared"} {
				for _, frag := range []string{"a", "b", "c"} {
					for _, ty := range []string{"f16", "f32", "bf16", "tf32", "f64", "s8", "u8", "s32", "s4", "u4", "b1"} {
						reg := fragReg(ty)
						if ty == "f16" || ty == "bf16" {
							reg = "r"
						}
						add(fmt.Sprintf("wmma.load.%s.sync.aligned.%s.%s%s.%s %s, [%%rd1], %%r201;", frag, lay, sh, ss, ty, regList(reg, wmmaFrag(sh, ty, frag))))
					}
				}
				for _, ty := range []string{"f16", "f32", "f64", "s32"} {
					reg := fragReg(ty)
					add(fmt.Sprintf("wmma.store.d.sync.aligned.%s.%s%s.%s [%%rd1], %s;", lay, sh, ss, ty, regList(reg, wmmaFrag(sh, ty, "d"))))
				}
			}
			for _, lb := range []string{"row", "col"} {
				for _, ty := range [][4]string{{"f16", "", "", "f16"}, {"f32", "", "", "f16"}, {"f32", "", "", "f32"}, {"f16", "", "", "f32"},
					{"f32", "bf16", "bf16", "f32"}, {"f32", "tf32", "tf32", "f32"}, {"f64", "f64", "f64", "f64"},
					{"s32", "s8", "s8", "s32"}, {"s32", "u8", "u8", "s32"}, {"s32", "s4", "s4", "s32"}, {"s32", "b1", "b1", "s32"}} {
					at := ty[1]
					if at == "" {
						at = "f16"
					}
					types := "." + ty[0] + "." + ty[3]
					if ty[1] != "" {
						types = "." + strings.Join(ty[:], ".")
					}
					if at == "b1" {
						types += ".xor.popc"
					}
					areg, creg := "r", fragReg(ty[3])
					if at == "f64" {
						areg = "fd"
					}
					add(fmt.Sprintf("wmma.mma.sync.aligned.%s.%s.%s%s %s, %s, %s, %s;", lay, lb, sh, types,
						regList(fragReg(ty[0]), wmmaFrag(sh, ty[0], "d")), regList(areg, wmmaFrag(sh, at, "a")),
						regList(areg, wmmaFrag(sh, at, "b")), regList(creg, wmmaFrag(sh, ty[3], "c"))))
				}
			}
		}
	}
	return out
}

// miscTensorCases are ldmatrix, stmatrix, movmatrix, the tensor-map
// instructions, cp.async.bulk.prefetch.tensor and multimem.
func miscTensorCases() []tensorCase {
	var out []tensorCase
	add := func(s string) { out = append(out, tensorCase{"8.5", "sm_90a", s}) }
	for _, x := range []int{1, 2, 4} {
		for _, tr := range []string{"", ".trans"} {
			for _, ss := range []string{"", ".shared", ".shared::cta", ".global"} {
				add(fmt.Sprintf("ldmatrix.sync.aligned.m8n8.x%d%s%s.b16 %s, [%%r202];", x, tr, ss, regList("r", x)))
				add(fmt.Sprintf("stmatrix.sync.aligned.m8n8.x%d%s%s.b16 [%%r202], %s;", x, tr, ss, regList("r", x)))
			}
			add(fmt.Sprintf("ldmatrix.sync.aligned.m8n8.x%d%s.b8 %s, [%%r202];", x, tr, regList("r", x)))
		}
	}
	add("movmatrix.sync.aligned.m8n8.trans.b16 %r1, %r2;")
	for d := 1; d <= 5; d++ {
		coords := regList("r", d)[1:]
		for _, mode := range []string{"", ".tile", ".im2col"} {
			for _, hint := range []string{"", ".L2::cache_hint"} {
				extra := ""
				if mode == ".im2col" && d >= 3 {
					extra = ", {%rs0}"
					if d == 5 {
						extra = ", {%rs0, %rs1, %rs2}"
					} else if d == 4 {
						extra = ", {%rs0, %rs1}"
					}
				}
				if hint != "" {
					extra += ", %rd3"
				}
				add(fmt.Sprintf("cp.async.bulk.prefetch.tensor.%dd.L2.global%s%s [%%rd1, {%s]%s;", d, mode, hint, coords, extra))
			}
		}
	}
	for _, sem := range []string{"", ".weak", ".relaxed.sys", ".acquire.gpu", ".release.cta"} {
		for _, op := range []string{"add", "min", "and"} {
			for _, ty := range []string{"u32", "s64", "b32", "f32", "f64"} {
				reg := map[string]string{"u32": "%r1", "s64": "%rd3", "b32": "%r1", "f32": "%f1", "f64": "%fd1"}[ty]
				add(fmt.Sprintf("multimem.ld_reduce%s.global.%s.%s %s, [%%rd1];", sem, op, ty, reg))
				add(fmt.Sprintf("multimem.red%s.global.%s.%s [%%rd1], %s;", sem, op, ty, reg))
			}
		}
		add(fmt.Sprintf("multimem.st%s.global.f32 [%%rd1], %%f1;", sem))
		add(fmt.Sprintf("multimem.st%s.global.b64 [%%rd1], %%rd3;", sem))
		add(fmt.Sprintf("multimem.ld_reduce%s.global.add.v4.f16x2 {%%r1, %%r2, %%r3, %%r4}, [%%rd1];", sem))
		add(fmt.Sprintf("multimem.ld_reduce%s.global.add.acc::f32.v2.bf16x2 {%%r1, %%r2}, [%%rd1];", sem))
		add(fmt.Sprintf("multimem.red%s.global.add.v2.f32 [%%rd1], {%%f1, %%f2};", sem))
		add(fmt.Sprintf("multimem.st%s.global.v4.f32 [%%rd1], {%%f1, %%f2, %%f3, %%f4};", sem))
	}
	for _, ss := range []string{"", ".global", ".shared::cta"} {
		for _, f := range []string{"global_address", "rank"} {
			add(fmt.Sprintf("tensormap.replace.tile.%s%s.b1024.b64 [%%rd1], %%rd2;", f, ss))
			add(fmt.Sprintf("tensormap.replace.tile.%s%s.b1024.b32 [%%rd1], %%r2;", f, ss))
		}
		for _, f := range []string{"box_dim", "global_dim", "global_stride", "element_stride"} {
			add(fmt.Sprintf("tensormap.replace.tile.%s%s.b1024.b32 [%%rd1], 1, %%r2;", f, ss))
			add(fmt.Sprintf("tensormap.replace.tile.%s%s.b1024.b64 [%%rd1], 1, %%rd2;", f, ss))
		}
		for _, f := range []string{"elemtype", "interleave_layout", "swizzle_mode", "fill_mode"} {
			add(fmt.Sprintf("tensormap.replace.tile.%s%s.b1024.b32 [%%rd1], 1;", f, ss))
			add(fmt.Sprintf("tensormap.replace.tile.%s%s.b1024.b32 [%%rd1], %%r2;", f, ss))
		}
	}
	for _, sc := range []string{"cta", "cluster", "gpu", "sys"} {
		add(fmt.Sprintf("tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.%s.sync.aligned [%%rd1], [%%rd2], 128;", sc))
	}
	return out
}

func allTensorCases() []tensorCase {
	return slices.Concat(wgmmaCases(), mmaCases(), wmmaCases(), miscTensorCases())
}

// tensorKernel is a kernel holding the cases, one a line, from line first.
func tensorKernel(version, target string, cases []tensorCase) (src string, first int) {
	var b strings.Builder
	fmt.Fprintf(&b, ".version %s\n.target %s\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n", version, target)
	b.WriteString(".reg .f32 %f<260>;\n.reg .b32 %r<260>;\n.reg .b64 %rd<8>;\n.reg .f64 %fd<260>;\n.reg .pred %p<4>;\n.reg .b16 %rs<8>;\n")
	first = strings.Count(b.String(), "\n") + 1
	for _, c := range cases {
		b.WriteString(c.inst + "\n")
	}
	b.WriteString("ret;\n}\n")
	return b.String(), first
}

// groupCases splits cases by PTX version and target, in first-seen order.
func groupCases(cases []tensorCase) [][]tensorCase {
	idx := map[string]int{}
	var groups [][]tensorCase
	for _, c := range cases {
		k := c.version + " " + c.target
		i, ok := idx[k]
		if !ok {
			i = len(groups)
			idx[k] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], c)
	}
	return groups
}

// ourTensorVerdicts checks every case and returns whether each has an error.
func ourTensorVerdicts(cases []tensorCase) map[string]bool {
	out := map[string]bool{}
	for _, g := range groupCases(cases) {
		for lo := 0; lo < len(g); lo += 50 { // below the checker's error limit
			chunk := g[lo:min(lo+50, len(g))]
			src, first := tensorKernel(chunk[0].version, chunk[0].target, chunk)
			lines, _ := ourErrorLines(src, "")
			for i, c := range chunk {
				out[c.key()] = lines[first+i]
			}
		}
	}
	return out
}

// ptxasTensorVerdicts asks ptxas about every case. Each group is assembled
// whole once (ptxas reports every parse-level error of a file), then the
// cases it did not reject go again in chunks, each chunk until ptxas
// rejects no new line: ptxas reports the errors of its lowering one at a
// time, and code generation for a whole valid group is slow.
func ptxasTensorVerdicts(t *testing.T, ptxas string, cases []tensorCase) map[string]bool {
	dir := t.TempDir()
	out := map[string]bool{}
	for _, g := range groupCases(cases) {
		bad := ptxasRejects(t, ptxas, dir, g, false)
		var rest []tensorCase
		for i, c := range g {
			if bad[i] {
				out[c.key()] = true
			} else {
				rest = append(rest, c)
			}
		}
		for lo := 0; lo < len(rest); lo += 40 {
			chunk := rest[lo:min(lo+40, len(rest))]
			bad := ptxasRejects(t, ptxas, dir, chunk, true)
			for i, c := range chunk {
				out[c.key()] = bad[i]
			}
		}
	}
	return out
}

// ptxasRejects assembles cases (of one version and target) and returns the
// indexes ptxas rejects; with again, it assembles the rest again until no
// new case is rejected.
func ptxasRejects(t *testing.T, ptxas, dir string, cases []tensorCase, again bool) map[int]bool {
	bad := map[int]bool{}
	for {
		var keep []tensorCase
		var at []int
		for i, c := range cases {
			if !bad[i] {
				keep = append(keep, c)
				at = append(at, i)
			}
		}
		if len(keep) == 0 {
			return bad
		}
		src, first := tensorKernel(cases[0].version, cases[0].target, keep)
		lines, crashed := ptxasVerdicts(t, ptxas, dir, cases[0].target, src)
		if crashed {
			t.Fatalf("ptxas crashed on %s", src)
		}
		fresh := 0
		for ln := range lines {
			if i := ln - first; i >= 0 && i < len(keep) {
				bad[at[i]] = true
				fresh++
			}
		}
		if fresh == 0 || !again {
			return bad
		}
	}
}

func readTensorVerdicts(t *testing.T) map[string]bool {
	f, err := os.Open(tensorVerdicts)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		verdict, key, ok := strings.Cut(sc.Text(), " ")
		if !ok || verdict != "ok" && verdict != "error" {
			t.Fatalf("%s: bad line %q", tensorVerdicts, sc.Text())
		}
		out[key] = verdict == "error"
	}
	return out
}

// compactKey shortens a case to its instruction's name and the number of
// each fragment's registers, so the recorded file stays small.
func compactKey(key string) string {
	var b strings.Builder
	depth, count := 0, 0
	for _, r := range key {
		switch {
		case r == '{':
			depth, count = 1, 1
			b.WriteRune('{')
		case r == '}':
			depth = 0
			fmt.Fprintf(&b, "%d}", count)
		case depth > 0:
			if r == ',' {
				count++
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func writeTensorVerdicts(t *testing.T, cases []tensorCase, v map[string]bool) {
	var b strings.Builder
	for _, c := range cases {
		verdict := "ok"
		if v[c.key()] {
			verdict = "error"
		}
		fmt.Fprintf(&b, "%s %s\n", verdict, compactKey(c.key()))
	}
	if err := os.MkdirAll(filepath.Dir(tensorVerdicts), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tensorVerdicts, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// compareTensorVerdicts reports every case where the checker and the
// reference disagree.
func compareTensorVerdicts(t *testing.T, cases []tensorCase, want map[string]bool, compact bool) {
	got := ourTensorVerdicts(cases)
	bad, valid := 0, 0
	for _, c := range cases {
		k := c.key()
		wk := k
		if compact {
			wk = compactKey(k)
		}
		w, ok := want[wk]
		if !ok {
			t.Fatalf("no recorded verdict for %s (run with PTXKIT_UPDATE_TENSOR=1 and ptxas 12.5)", wk)
		}
		if !w {
			valid++
		}
		if got[k] != w {
			bad++
			if bad <= 40 || os.Getenv("PTXKIT_TENSOR_ALL") != "" {
				t.Errorf("%s: ptxas error=%v, ptxkit error=%v", wk, w, got[k])
			}
		}
	}
	t.Logf("%d cases (%d valid), %d disagreements", len(cases), valid, bad)
	if bad > 40 {
		t.Errorf("... %d disagreements in all", bad)
	}
}

// TestTensorFormsRecorded holds the checker to ptxas 12.5's recorded
// verdicts on every enumerated tensor-core and tensor-map instruction.
func TestTensorFormsRecorded(t *testing.T) {
	cases := allTensorCases()
	if os.Getenv("PTXKIT_UPDATE_TENSOR") != "" {
		ptxas := ptxasPath("12.5")
		if ptxas == "" {
			t.Fatal("PTXKIT_UPDATE_TENSOR needs ptxas 12.5")
		}
		writeTensorVerdicts(t, cases, ptxasTensorVerdicts(t, ptxas, cases))
	}
	compareTensorVerdicts(t, cases, readTensorVerdicts(t), true)
}

// TestTritonStyleTensorCoreModule: a kernel written the way Triton's and
// CUTLASS's sm_90a output is (wgmma between fence, commit and wait, the
// scale-d predicate, the descriptors built with and/shr/or, a wmma tile,
// a tensor-map prefetch and a multimem reduction) checks without a
// diagnostic.
func TestTritonStyleTensorCoreModule(t *testing.T) {
	var d strings.Builder
	for i := range 64 {
		if i > 0 {
			d.WriteString(", ")
		}
		fmt.Fprintf(&d, "%%f%d", i)
	}
	src := `.version 8.5
.target sm_90a
.address_size 64
.extern .shared .align 1024 .b8 global_smem[];
.visible .entry matmul_kernel(.param .u64 matmul_kernel_param_0, .param .u64 matmul_kernel_param_1)
{
	.reg .pred %p<4>;
	.reg .b32 %r<16>;
	.reg .f32 %f<80>;
	.reg .b64 %rd<16>;
	mov.u32 %r1, global_smem;
	cvt.u64.u32 %rd1, %r1;
	and.b64 %rd2, %rd1, 262143;
	shr.u64 %rd3, %rd2, 4;
	or.b64 %rd4, %rd3, 4611686293305294848;
	add.s64 %rd5, %rd4, 512;
	setp.ne.s32 %p1, %r2, 0;
	wgmma.fence.sync.aligned;
	wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {` + d.String() + `}, %rd4, %rd5, %p1, 1, 1, 0, 1;
	wgmma.commit_group.sync.aligned;
	wgmma.wait_group.sync.aligned 0;
	wmma.load.a.sync.aligned.row.m16n16k16.shared.f16 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, [%r1], 16;
	ld.param.u64 %rd6, [matmul_kernel_param_0];
	cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%rd6, {%r3, %r4}];
	ld.param.u64 %rd7, [matmul_kernel_param_1];
	multimem.red.relaxed.sys.global.add.f32 [%rd7], %f0;
	tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%r1], %rd7;
	ret;
}
`
	m, errs := parser.ParseString("triton.ptx", src)
	l := append(errs, Module(m, Config{})...)
	for _, x := range l {
		if x.Severity == diag.Error {
			t.Errorf("%v", x)
		}
	}
	if ptxas := ptxasPath("12.5"); ptxas != "" {
		if lines := ptxasErrorLines(t, ptxas, t.TempDir(), "sm_90a", src); len(lines) > 0 {
			t.Errorf("ptxas 12.5 rejects lines %v of the module", lines)
		}
	}
}
