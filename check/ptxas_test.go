package check

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/internal/oracle"
	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/parser"
)

// ptxasPath finds NVIDIA ptxas of the given CUDA version, or returns "".
func ptxasPath(version string) string { return oracle.Tool(version, "ptxas") }

var (
	// A line of ptxas's own built-in code ("ptxas <builtin>, line 19;
	// fatal", after some video selectors) is not a line of the module.
	ptxasLine = regexp.MustCompile(`(?m)^ptxas [^<\n]*, line (\d+); (error|fatal)`)
	// ptxas warns about narrow addresses and then, for 32-bit ones, stops
	// with a fatal error that has no line.
	ptxasAddrWarn = regexp.MustCompile(`uses 32-bit address on line '(\d+)'`)
)

// ptxasErrorLines assembles src for target and returns the lines ptxas
// reports errors on. A fatal (parse) error stops ptxas before it checks
// any other line, so the fatal line is blanked and the rest assembled
// again until no fatal error remains.
func ptxasErrorLines(t *testing.T, ptxas, dir, target, src string) map[int]bool {
	lines, _ := ptxasVerdicts(t, ptxas, dir, target, src)
	return lines
}

// ptxasVerdicts is ptxasErrorLines that also reports whether ptxas
// crashed: a line without an error printed then carries no verdict.
func ptxasVerdicts(t *testing.T, ptxas, dir, target, src string) (map[int]bool, bool) {
	fatalLines := map[int]bool{}
	for {
		lines, fatal, crashed := ptxasRunCrash(t, ptxas, dir, target, src)
		if crashed {
			return lines, true // the errors it printed before it crashed
		}
		if fatal < 0 {
			for n := range fatalLines {
				lines[n] = true
			}
			return lines, false
		}
		if fatal == 0 || fatalLines[fatal] {
			t.Fatalf("ptxas failed without a usable line number on:\n%s", src)
		}
		fatalLines[fatal] = true
		l := strings.Split(src, "\n")
		l[fatal-1] = ""
		src = strings.Join(l, "\n")
	}
}

// ptxasRun runs ptxas once; fatal is the line of a fatal error, 0 for a
// fatal error without a line, -1 for none.
func ptxasRun(t *testing.T, ptxas, dir, target, src string) (map[int]bool, int) {
	lines, fatal, _ := ptxasRunCrash(t, ptxas, dir, target, src)
	return lines, fatal
}

// ptxasRunCrash is ptxasRun that also reports whether ptxas was killed by
// a signal (it then printed no verdict for any line).
func ptxasRunCrash(t *testing.T, ptxas, dir, target, src string) (map[int]bool, int, bool) {
	f := filepath.Join(dir, "k.ptx")
	if err := os.WriteFile(f, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(ptxas, "-arch="+target, f, "-o", filepath.Join(dir, "k.cubin")).CombinedOutput()
	ee, ok := err.(*exec.ExitError)
	crashed := ok && ee.ExitCode() < 0
	lines := map[int]bool{}
	fatal := -1
	for _, m := range ptxasLine.FindAllSubmatch(out, -1) {
		n, _ := strconv.Atoi(string(m[1]))
		lines[n] = true
		if string(m[2]) == "fatal" {
			fatal = n
		}
	}
	if fatal < 0 && bytes.Contains(out, []byte("fatal")) && !bytes.Contains(out, []byte("aborted due to errors")) {
		fatal = 0
		if m := ptxasAddrWarn.FindSubmatch(out); m != nil {
			fatal, _ = strconv.Atoi(string(m[1]))
		}
	}
	return lines, fatal, crashed
}

// ourErrorLines parses and checks src and returns the lines with errors,
// leaving out diagnostics of rule ignore.
func ourErrorLines(src, ignore string) (map[int]bool, diag.List) {
	m, errs := parser.ParseString("k.ptx", src)
	l := append(errs, Module(m, Config{})...)
	lines := map[int]bool{}
	for _, d := range l {
		if d.Severity == diag.Error && d.Rule != ignore {
			lines[int(d.Pos.Line)] = true
		}
	}
	return lines, l
}

type diffCase struct {
	version, target, line string
}

// genCases returns n random cases with a fixed seed, in batches that share
// a version and target.
func genCases(seed uint64, n int, maxPTX string) [][]diffCase {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	var batches [][]diffCase
	for n > 0 {
		var v, tg string
		modern := r.IntN(100) < 70
		for {
			v = genVersions[r.IntN(len(genVersions))]
			tg = genTargets[r.IntN(len(genTargets))]
			if modern && (v < "7.8" || tg < "sm_80") || v > maxPTX {
				continue
			}
			pv, _ := isa.ParseVersion(v)
			pt, _ := isa.ParseTarget(tg)
			if isa.TargetValid(pt, pv) == nil {
				break
			}
		}
		g := &gen{r: r, version: v, b128: hasB128(v, tg), f16: hasF16(tg)}
		k := min(n, 400)
		b := make([]diffCase, k)
		for i := range b {
			b[i] = diffCase{v, tg, g.instruction()}
		}
		batches = append(batches, b)
		n -= k
	}
	return batches
}

// TestPtxasAgreement compares the validator's per-instruction verdict with
// ptxas 12.5 on random store instructions across PTX 6.0-8.5 and sm_50 to
// sm_90a. PTXKIT_DIFF_CASES sets the number of cases (default 10000; 1000
// for ptxas 11.8, which compiles every valid batch slowly) and
// PTXKIT_DIFF_SEED the seed (default 1).
func TestPtxasAgreement(t *testing.T) {
	testAgreement(t, "12.5", "8.5", "", 10000)
}

// TestPtxas118Agreement is the same comparison with ptxas 11.8 (CUDA
// 11.8), limited to the PTX ISA versions it knows (up to 7.8). ptxas 11.8
// still compiles 32-bit addresses in 64-bit modules (with a warning), which
// ptxas 12.5 rejects, so the address-size rule is left out.
func TestPtxas118Agreement(t *testing.T) {
	testAgreement(t, "11.8", "7.8", "address-size", 1000)
}

func testAgreement(t *testing.T, cuda, maxPTX, ignoreRule string, n int) {
	ptxas := ptxasPath(cuda)
	if ptxas == "" {
		t.Skipf("ptxas %s: %s", cuda, oracle.SkipMessage)
	}
	seed := uint64(1)
	if s := os.Getenv("PTXKIT_DIFF_CASES"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	if s := os.Getenv("PTXKIT_DIFF_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	if testing.Short() {
		n = min(n, 500)
	}
	dir := t.TempDir()
	total, agree, valid := 0, 0, 0
	rules := map[string]int{}
	var bad []string
	for _, batch := range genCases(seed, n, maxPTX) {
		v, tg := batch[0].version, batch[0].target
		header := kernelHeader(v, tg)
		first := strings.Count(header, "\n") + 1
		var body strings.Builder
		for _, c := range batch {
			body.WriteString(c.line + "\n")
		}
		src := header + body.String() + kernelFooter
		if l := ptxasErrorLines(t, ptxas, dir, tg, header+kernelFooter); len(l) > 0 {
			t.Fatalf("the test kernel's own declarations do not assemble for PTX %s %s: lines %v", v, tg, l)
		}
		theirs := ptxasErrorLines(t, ptxas, dir, tg, src)
		ours, diags := ourErrorLines(src, ignoreRule)
		for i, c := range batch {
			ln := first + i
			want := theirs[ln]
			if want != ours[ln] {
				// One error may hide others: decide this line on its own.
				single := header + c.line + "\n" + kernelFooter
				l := ptxasErrorLines(t, ptxas, dir, tg, single)
				want = l[first]
			}
			total++
			for _, d := range diags {
				if int(d.Pos.Line) == ln && d.Severity == diag.Error && d.Rule != ignoreRule {
					rules[d.Rule]++
				}
			}
			if !want {
				valid++
			}
			if want == ours[ln] {
				agree++
				continue
			}
			var msgs []string
			for _, d := range diags {
				if int(d.Pos.Line) == ln {
					msgs = append(msgs, d.Message)
				}
			}
			bad = append(bad, fmt.Sprintf("PTX %s %s: %s\n\tptxas error=%v, ptxkit error=%v %q", v, tg, c.line, want, ours[ln], msgs))
		}
	}
	t.Logf("agreement with ptxas %s: %d/%d (%.2f%%), %d valid and %d invalid instructions (seed %d)",
		cuda, agree, total, 100*float64(agree)/float64(total), valid, total-valid, seed)
	t.Logf("errors by rule: %v", rules)
	for i, b := range bad {
		if i == 40 {
			t.Errorf("... and %d more disagreements", len(bad)-40)
			break
		}
		t.Error(b)
	}
}
