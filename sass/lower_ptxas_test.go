package sass

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/internal/oracle"
	"github.com/ptxkit/ptxkit/isa"
)

// storeKernel returns a PTX kernel named k<i> that performs row r's store
// on live data, so that ptxas keeps it.
func storeKernel(i int, r lowerRow) (module, body string) {
	var b strings.Builder
	module = fmt.Sprintf(".shared .align 16 .b8 sh%d[256];\n.shared .align 8 .b64 mb%d;\n", i, i)
	fmt.Fprintf(&b, ".visible .entry k%d(.param .u64 p)\n{\n", i)
	b.WriteString("\t.reg .b16 %rs<8>;\n\t.reg .b32 %r<16>;\n\t.reg .b64 %rd<16>;\n\t.reg .f32 %f<5>;\n\t.reg .f64 %fd<4>;\n")
	if r.typ == ".b128" {
		b.WriteString("\t.reg .b128 %q<2>;\n")
	}
	b.WriteString("\t.local .align 16 .b8 loc[64];\n")
	b.WriteString("\tld.param.u64 %rd1, [p];\n\tcvta.to.global.u64 %rd2, %rd1;\n\tmov.u32 %r1, %tid.x;\n")
	b.WriteString("\tadd.u32 %r2, %r1, 5;\n\tadd.u32 %r9, %r1, 9;\n\tadd.u32 %r10, %r1, 10;\n\tadd.u32 %r11, %r1, 11;\n")
	b.WriteString("\tcvt.u16.u32 %rs1, %r2;\n\tcvt.u16.u32 %rs2, %r9;\n\tcvt.u16.u32 %rs3, %r10;\n\tcvt.u16.u32 %rs4, %r11;\n")
	b.WriteString("\tcvt.u64.u32 %rd3, %r2;\n\tcvt.u64.u32 %rd7, %r9;\n\tcvt.rn.f32.u32 %f1, %r2;\n\tcvt.rn.f32.u32 %f2, %r9;\n\tcvt.rn.f32.u32 %f3, %r10;\n\tcvt.rn.f32.u32 %f4, %r11;\n\tcvt.rn.f64.u32 %fd1, %r2;\n")
	if r.typ == ".b128" {
		b.WriteString("\tmov.b128 %q1, {%rd3, %rd7};\n")
	}
	fmt.Fprintf(&b, "\tmov.u32 %%r3, sh%d;\n\tshl.b32 %%r4, %%r1, 4;\n\tadd.u32 %%r5, %%r3, %%r4;\n", i)
	addr, tail := "[%rd2]", ""
	switch {
	case strings.Contains(r.quals, "::cluster"):
		fmt.Fprintf(&b, "\tmapa.shared::cluster.u32 %%r6, %%r5, 1;\n\tmov.u32 %%r7, mb%d;\n\tmapa.shared::cluster.u32 %%r8, %%r7, 1;\n", i)
		addr = "[%r6]"
	case strings.Contains(r.quals, ".shared"):
		addr = "[%r5]"
	case strings.Contains(r.quals, ".local"):
		b.WriteString("\tmov.u64 %rd4, loc;\n")
		addr = "[%rd4]"
		tail = "\tand.b32 %r12, %r1, 3;\n\tmul.wide.u32 %rd5, %r12, 4;\n\tadd.u64 %rd6, %rd4, %rd5;\n\tld.local.u32 %r13, [%rd6];\n\tred.global.add.u32 [%rd2], %r13;\n"
	case !strings.Contains(r.quals, ".global"):
		addr = "[%rd1]"
	}
	operands := addr + ", " + storeValue(r)
	if strings.Contains(r.quals, ".async") {
		operands += ", [%r8]"
	}
	if strings.Contains(r.quals, "L2::cache_hint") {
		b.WriteString("\tcreatepolicy.fractional.L2::evict_last.b64 %rd9, 1.0;\n")
		operands += ", %rd9"
	}
	fmt.Fprintf(&b, "\t%s %s;\n%s\tret;\n}\n", r.ptx(), operands, tail)
	return module, b.String()
}

func storeValue(r lowerRow) string {
	regs := map[int][]string{8: {"%rs1", "%rs2", "%rs3", "%rs4"}, 16: {"%rs1", "%rs2", "%rs3", "%rs4"},
		32: {"%r2", "%r9", "%r10", "%r11"}, 64: {"%rd3", "%rd7"}, 128: {"%q1"}}
	set := regs[isa.TypeByName(r.typ).Bits()]
	if r.typ == ".f32" {
		set = []string{"%f1", "%f2", "%f3", "%f4"}
	} else if r.typ == ".f64" {
		set = []string{"%fd1"}
	}
	switch r.vec {
	case ".v2":
		return "{" + strings.Join(set[:2], ", ") + "}"
	case ".v4":
		return "{" + strings.Join(set[:4], ", ") + "}"
	}
	return set[0]
}

var sassInstLine = regexp.MustCompile(`/\*[0-9a-f]{4}\*/\s+(?:@!?U?P[0-9T]\s+)?([A-Z][A-Z0-9_.]*)`)

// storeOpcodes compiles src with ptxas for arch and returns, per kernel,
// the store and fence opcodes (with modifiers) from cuobjdump -sass.
func storeOpcodes(t *testing.T, bin, src, arch string) (map[string][]string, error) {
	dir := t.TempDir()
	ptx, cubin := filepath.Join(dir, "x.ptx"), filepath.Join(dir, "x.cubin")
	if err := os.WriteFile(ptx, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(filepath.Join(bin, "ptxas"), "-arch="+arch, ptx, "-o", cubin)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("ptxas: %v: %s", err, stderr.String())
	}
	out, err := exec.Command(filepath.Join(bin, "cuobjdump"), "-sass", cubin).Output()
	if err != nil {
		t.Fatalf("cuobjdump: %v", err)
	}
	res := map[string][]string{}
	fn := ""
	for _, line := range strings.Split(string(out), "\n") {
		if i := strings.Index(line, "Function : "); i >= 0 {
			fn = strings.TrimSpace(line[i+len("Function : "):])
			res[fn] = []string{}
			continue
		}
		m := sassInstLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		op := m[1]
		if base := strings.SplitN(op, ".", 2)[0]; base == "STS" || base == "STL" || base == "STG" || base == "ST" || base == "STAS" || base == "MEMBAR" || base == "ERRBAR" {
			res[fn] = append(res[fn], op)
		}
	}
	return res, nil
}

// TestLowerAgainstPtxas compiles every row of table T4 with ptxas 12.5 and
// checks that LowerStore names the same SASS opcodes and modifiers, and
// that the rows LowerStore rejects are rejected by ptxas too.
func TestLowerAgainstPtxas(t *testing.T) {
	t.Parallel()
	bin := filepath.Dir(cudaBin(t, "ptxas"))
	cudaBin(t, "cuobjdump")
	checkLowering(t, bin, "8.5", lowerTargets[:])
}

// TestLowerAgainstPtxas118 repeats the sm_50 column with CUDA 11.8's ptxas
// (PTX 7.8), the version table T4's sm_50 column was measured with.
func TestLowerAgainstPtxas118(t *testing.T) {
	t.Parallel()
	ptxas := oracle.Tool("11.8", "ptxas")
	if ptxas == "" {
		t.Skip("CUDA 11.8 ptxas: " + oracle.SkipMessage)
	}
	checkLowering(t, filepath.Dir(ptxas), "7.8", lowerTargets[:1])
}

func checkLowering(t *testing.T, bin, version string, targets []string) {
	for ti, target := range targets {
		t.Run(target, func(t *testing.T) {
			t.Parallel()
			var mods, bodies strings.Builder
			var accepted []int
			for i, r := range lowerRows {
				if r.want[ti] == "x" {
					continue
				}
				m, b := storeKernel(i, r)
				mods.WriteString(m)
				bodies.WriteString(b)
				accepted = append(accepted, i)
			}
			src := ptxHeader(version, target) + mods.String() + bodies.String()
			got, err := storeOpcodes(t, bin, src, target)
			if err != nil {
				t.Fatal(err)
			}
			for _, i := range accepted {
				in := parseStoreText(t, lowerRows[i].ptx())
				want, err := LowerStore(in, target)
				if err != nil {
					t.Errorf("%s: LowerStore: %v", lowerRows[i].ptx(), err)
					continue
				}
				if g := got[fmt.Sprintf("k%d", i)]; strings.Join(g, ";") != strings.Join(want, ";") {
					t.Errorf("%s: ptxas emits %q, LowerStore %q", lowerRows[i].ptx(), strings.Join(g, ";"), strings.Join(want, ";"))
				}
			}
			if testing.Short() {
				return
			}
			for i, r := range lowerRows {
				if r.want[ti] != "x" {
					continue
				}
				m, b := storeKernel(i, r)
				if _, err := storeOpcodes(t, bin, ptxHeader(version, target)+m+b, target); err == nil {
					t.Errorf("%s: ptxas accepts it for %s but LowerStore rejects it", r.ptx(), target)
				}
			}
		})
	}
}

func ptxHeader(version, target string) string {
	return ".version " + version + "\n.target " + target + "\n.address_size 64\n\n"
}
