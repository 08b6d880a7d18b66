package check

import (
	"bufio"
	"fmt"
	"github.com/ptxkit/ptxkit/internal/testref"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/parser"
)

// corpusPath is the shared store-family corpus, beside the project root.
var corpusPath = testref.Path("corpus", "stores.tsv")

type corpusRow struct {
	line    int
	instr   string
	target  string // minimum target the row states ("sm_100a")
	version string // minimum PTX ISA version ("8.6")
	note    string
}

var corpusMin = regexp.MustCompile(`ISA min (sm_[0-9]+[af]?)[^,]*, PTX ([0-9]+\.[0-9]+)`)

// storeRows returns the rows of st, st.async and tcgen05.st.
func storeRows(t *testing.T) []corpusRow {
	f, err := os.Open(corpusPath)
	if err != nil {
		t.Skipf("corpus not found: %v", err)
	}
	defer f.Close()
	var rows []corpusRow
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		cols := strings.Split(sc.Text(), "\t")
		if n == 1 || len(cols) < 5 {
			continue
		}
		in := cols[0]
		op := strings.TrimSpace(in)
		if strings.HasPrefix(op, "@") {
			_, op, _ = strings.Cut(op, " ")
		}
		if !(strings.HasPrefix(op, "st.") || strings.HasPrefix(op, "tcgen05.st.")) || strings.HasPrefix(op, "st.bulk") {
			continue
		}
		m := corpusMin.FindStringSubmatch(cols[3])
		if m == nil {
			t.Fatalf("stores.tsv:%d: no minimum target in %q", n, cols[3])
		}
		rows = append(rows, corpusRow{line: n, instr: in, target: m[1], version: m[2], note: cols[4]})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// corpusKernel wraps one corpus instruction in a kernel that declares its
// placeholder registers (%rN .b32, %rdN .b64, %fN .f32, %fdN .f64, %rsN
// .b16, %rqN .b128, %pN .pred; see the corpus README).
func corpusKernel(row corpusRow, version, target string) string {
	addr := 64
	if corpusAddr32.MatchString(row.instr) {
		// A 32-bit register address for .global or generic addressing
		// is PTX for .address_size 32.
		addr = 32
	}
	return fmt.Sprintf(`.version %s
.target %s
.address_size %d
.visible .entry k()
{
.reg .b32 %%r<300>;
.reg .b64 %%rd<300>;
.reg .f32 %%f<300>;
.reg .f64 %%fd<300>;
.reg .b16 %%rs<300>;
.reg .b128 %%rq<300>;
.reg .pred %%p<300>;
.reg .pred persist;
.reg .v4 .f32 abcd;
%s
ret;
}
`, version, target, addr, row.instr)
}

// corpusAddr32 matches st and st.global (not shared, local, param) with a
// 32-bit placeholder register as address.
var corpusAddr32 = regexp.MustCompile(`^(@\S+ )?st(\.[a-zA-Z0-9_:]+)*? \[%r[0-9]`)

const corpusInstrLine = 15

func checkCorpusRow(t *testing.T, row corpusRow, version, target string) (errs, warns diag.List) {
	src := corpusKernel(row, version, target)
	m, perrs := parser.ParseString("row.ptx", src)
	if len(perrs) > 0 {
		t.Errorf("stores.tsv:%d: %s: syntax errors: %v", row.line, row.instr, perrs)
		return nil, nil
	}
	for _, d := range Validate(m, Config{}) {
		if d.Pos.Line != corpusInstrLine && d.Rule != "target-version" {
			continue
		}
		if d.Severity == diag.Error {
			errs = append(errs, d)
		} else {
			warns = append(warns, d)
		}
	}
	return errs, warns
}

// invalidNote reports whether the corpus marks a row as invalid PTX.
func invalidNote(note string) bool {
	return strings.Contains(note, "NOT a legal") || strings.Contains(note, "illegal vector")
}

// TestCorpusStores checks every st, st.async and tcgen05.st row of the
// shared corpus: valid rows validate clean for their stated minimum
// target and version and are rejected, for the right reason, one version
// or one target generation earlier; rows the corpus marks invalid are
// rejected.
func TestCorpusStores(t *testing.T) {
	rows := storeRows(t)
	if len(rows) < 900 {
		t.Fatalf("only %d store rows in the corpus", len(rows))
	}
	clean, older, earlier, raised, retyped := 0, 0, 0, 0, 0
	for _, row := range rows {
		if effectiveMinimum(&row) {
			raised++
		}
		errs, warns := checkCorpusRow(t, row, row.version, row.target)
		if onlyRule(errs, "operand-type") && !invalidNote(row.note) {
			// Registers are placeholders typed from asm constraints; a
			// 32-bit %rN standing for a 64-bit value is retyped.
			row.instr = widenValue(row.instr)
			errs, warns = checkCorpusRow(t, row, row.version, row.target)
			retyped++
		}
		if invalidNote(row.note) {
			if len(errs) == 0 {
				t.Errorf("stores.tsv:%d: %s: marked invalid but validates clean", row.line, row.instr)
			}
			continue
		}
		if len(errs) > 0 {
			t.Errorf("stores.tsv:%d: %s (PTX %s, %s): %v", row.line, row.instr, row.version, row.target, errs)
			continue
		}
		if strings.Contains(row.instr, "], {%") && !strings.Contains(row.instr, ".v") &&
			!strings.Contains(row.instr, "tcgen05") && len(warns) == 0 {
			t.Errorf("stores.tsv:%d: %s: braced scalar without a warning", row.line, row.instr)
		}
		clean++
		if v := previousVersion(row.version); v != "" {
			errs, _ := checkCorpusRow(t, row, v, row.target)
			if !hasRule(errs, "ptx-version") && !hasRule(errs, "target-version") {
				t.Errorf("stores.tsv:%d: %s: PTX %s not rejected as too old: %v", row.line, row.instr, v, errs)
			}
			older++
		}
		if tg := previousTarget(row.target); tg != "" {
			errs, _ := checkCorpusRow(t, row, row.version, tg)
			if !hasRule(errs, "target") {
				t.Errorf("stores.tsv:%d: %s: %s not rejected as too old a target: %v", row.line, row.instr, tg, errs)
			}
			earlier++
		}
	}
	t.Logf("%d rows: %d clean at their minimum, %d rejected one version earlier, %d rejected one target earlier; "+
		"%d rows state a minimum below the ISA notes' (raised); %d value placeholders retyped to 64 bits",
		len(rows), clean, older, earlier, raised, retyped)
}

// effectiveMinimum raises a row's stated minimum version and target to
// what the ISA notes require for the qualifiers it uses (the corpus gives
// PTX 1.0 for rows with cache operators, which PTX ISA 2.0 introduced),
// and the version to one that has the target. It reports a change.
func effectiveMinimum(row *corpusRow) bool {
	op := strings.TrimSpace(row.instr)
	if strings.HasPrefix(op, "@") {
		_, op, _ = strings.Cut(op, " ")
	}
	op, _, _ = strings.Cut(op, " ")
	f, _ := isa.DecodeString(op)
	req := isa.Requirements(&f)
	v, _ := isa.ParseVersion(row.version)
	tg, _ := isa.ParseTarget(row.target)
	changed := false
	if tg.Suffix == 0 && tg.SM < req.MinSM {
		tg.SM = req.MinSM
		row.target = tg.String()
		changed = true
	}
	need := req.PTX
	if since, ok := isa.TargetSince(tg); ok {
		need = max(need, since)
	}
	if v < need {
		row.version = need.String()
		changed = true
	}
	return changed
}

func onlyRule(l diag.List, rule string) bool {
	for _, d := range l {
		if d.Rule != rule {
			return false
		}
	}
	return len(l) > 0
}

var placeholder32 = regexp.MustCompile(`%r([0-9]+)`)

// widenValue turns the 32-bit placeholders after the address into 64-bit
// ones: "st.global.b64 [%rd1], %r2;" becomes "... [%rd1], %rd2;".
func widenValue(instr string) string {
	i := strings.Index(instr, "],")
	if i < 0 {
		return instr
	}
	return instr[:i] + placeholder32.ReplaceAllString(instr[i:], "%rd$1")
}

func hasRule(l diag.List, rule string) bool {
	for _, d := range l {
		if d.Rule == rule {
			return true
		}
	}
	return false
}

// ptxVersions are the PTX ISA releases, oldest first.
var ptxVersions = []string{"1.0", "1.1", "1.2", "1.3", "1.4", "2.0", "2.1", "2.2", "2.3", "3.0", "3.1", "3.2",
	"4.0", "4.1", "4.2", "4.3", "5.0", "6.0", "6.1", "6.2", "6.3", "6.4", "6.5", "7.0", "7.1", "7.2", "7.3",
	"7.4", "7.5", "7.6", "7.7", "7.8", "8.0", "8.1", "8.2", "8.3", "8.4", "8.5", "8.6", "8.7", "8.8", "9.0", "9.1"}

func previousVersion(v string) string {
	for i, x := range ptxVersions {
		if x == v && i > 0 {
			return ptxVersions[i-1]
		}
	}
	return ""
}

// previousTarget returns the newest target older than t that lacks t's
// features: sm_90 for sm_100a, sm_62 for sm_70; "" for the oldest.
func previousTarget(t string) string {
	pt, err := isa.ParseTarget(t)
	if err != nil || pt.SM <= 10 {
		return ""
	}
	older := map[int]string{13: "sm_12", 20: "sm_13", 30: "sm_21", 70: "sm_62", 80: "sm_75", 90: "sm_89", 100: "sm_90a"}
	return older[pt.SM]
}

// TestCorpusFamilyGates checks the generic version and target gates of
// the families without full tables (mbarrier, cp.async, tcgen05.alloc,
// fence.proxy.async, ...) against the minimum each corpus row states.
func TestCorpusFamilyGates(t *testing.T) {
	f, err := os.Open(corpusPath)
	if err != nil {
		t.Skipf("corpus not found: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	checked := 0
	for n := 1; sc.Scan(); n++ {
		cols := strings.Split(sc.Text(), "\t")
		if n == 1 || len(cols) < 5 {
			continue
		}
		op := strings.TrimSpace(cols[0])
		if strings.HasPrefix(op, "@") {
			_, op, _ = strings.Cut(op, " ")
		}
		op, _, _ = strings.Cut(op, " ")
		g := isa.LookupFamily(op)
		m := corpusMin.FindStringSubmatch(cols[3])
		if g == nil || m == nil {
			continue
		}
		v, _ := isa.ParseVersion(m[2])
		tg, _ := isa.ParseTarget(m[1])
		if p := g.Check(v, tg, nil); len(p) > 0 {
			t.Errorf("stores.tsv:%d: %s at its stated minimum (%s): %s", n, op, cols[3], p[0].Msg)
		}
		checked++
	}
	if checked < 500 {
		t.Errorf("only %d family rows checked", checked)
	}
	t.Logf("%d rows of gated families agree with their stated minimum", checked)
}
