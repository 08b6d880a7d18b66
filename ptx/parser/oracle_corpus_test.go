package parser_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/internal/oracle"
	"github.com/ptxkit/ptxkit/ptx/parser"
	"github.com/ptxkit/ptxkit/ptx/printer"
	"github.com/ptxkit/ptxkit/ptx/resolve"
)

// TestCorpusAcceptedByPtxas runs ptxas 12.5 on every corpus row wrapped in
// an sm_90a / PTX 8.5 kernel and checks that the front end accepts every
// kernel ptxas accepts (the front end must never reject valid PTX) and
// that the parser rejects every kernel ptxas finds a syntax error in, and
// that ptxas accepts the printed form of every kernel it accepts. It runs
// ptxas about 3,300 times (a minute or two on two cores), so it is opt-in:
// set PTXKIT_ORACLE_CORPUS=1.
func TestCorpusAcceptedByPtxas(t *testing.T) {
	if os.Getenv("PTXKIT_ORACLE_CORPUS") == "" {
		t.Skip("set PTXKIT_ORACLE_CORPUS=1 to run ptxas on every corpus row")
	}
	bin := oracle.Ptxas()
	if bin == "" {
		t.Skip(oracle.SkipMessage)
	}
	rows := readCorpus(t)
	f := filepath.Join(t.TempDir(), "row.ptx")
	accepted := 0
	for _, r := range rows {
		src := strings.Replace(wrapInstruction(r.instr), ".version 8.7\n.target sm_100a", ".version 8.5\n.target sm_90a", 1)
		if err := os.WriteFile(f, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(bin, "-arch=sm_90a", f, "-o", os.DevNull).CombinedOutput()
		m, errs := parser.ParseString("row.ptx", src)
		if err != nil {
			// Newer than ptxas 12.5, or invalid. A ptxas syntax error must
			// be a syntax error of the parser too.
			if strings.Contains(string(out), "Parsing error") && !errs.HasErrors() {
				t.Errorf("stores.tsv:%d: ptxas reports a syntax error for %q, the parser none: %s", r.line, r.instr, out)
			}
			continue
		}
		accepted++
		if !errs.HasErrors() {
			_, errs = resolve.Module(m)
		}
		if errs.HasErrors() {
			t.Errorf("stores.tsv:%d: ptxas accepts %q, the front end reports %v", r.line, r.instr, errs.Err())
			continue
		}
		// The canonical form must be accepted too.
		printed := printer.Bytes(m)
		if err := os.WriteFile(f, printed, 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(bin, "-arch=sm_90a", f, "-o", os.DevNull).CombinedOutput(); err != nil {
			t.Errorf("stores.tsv:%d: ptxas rejects the printed form of %q: %s\n%s", r.line, r.instr, out, printed)
		}
	}
	t.Logf("%d of %d rows accepted by ptxas", accepted, len(rows))
	if accepted == 0 {
		t.Error("ptxas accepted no row: the wrapper is broken")
	}
}
