package isa

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// TestGeneratedUpToDate regenerates zforms.go from data/instructions.txt
// and fails when the committed file differs: run "go generate ./isa".
func TestGeneratedUpToDate(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH: cannot run isagen")
	}
	out := filepath.Join(t.TempDir(), "zforms.go")
	cmd := exec.Command(gobin, "run", "./internal/isagen", "-in", "data/instructions.txt", "-quals", "qual.go", "-out", out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("isagen: %v\n%s", err, msg)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("zforms.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("zforms.go is not what isagen writes from data/instructions.txt: run go generate ./isa")
	}
}

// TestGeneratedIndexes checks the generated lookup tables against the
// forms, the qualifier table and the doc lines they index.
func TestGeneratedIndexes(t *testing.T) {
	if n := qualIndex.Len(); n != int(numQuals)-1 {
		t.Errorf("qualIndex holds %d spellings, want %d", n, numQuals-1)
	}
	byOp := map[string][]*OpForm{}
	for i := range opForms {
		f := &opForms[i]
		byOp[f.Opcode] = append(byOp[f.Opcode], f)
	}
	if len(byOp) != len(formOpcodes) || !slices.IsSorted(formOpcodes[:]) {
		t.Errorf("formOpcodes: %d opcodes, sorted %v; the forms have %d", len(formOpcodes), slices.IsSorted(formOpcodes[:]), len(byOp))
	}
	for op, want := range byOp {
		if got := Forms(op); !slices.Equal(got, want) {
			t.Errorf("Forms(%q) has %d forms, want %d in file order", op, len(got), len(want))
		}
	}
	for _, op := range []string{"", "ad", "addd", "st.global", "tcgen06"} {
		if Forms(op) != nil {
			t.Errorf("Forms(%q) is not empty", op)
		}
	}
	// nearestOpcode suggests from the forms' opcodes: every store table's
	// opcode has forms too.
	if got := Opcodes(); !slices.Equal(got, formOpcodes[:]) {
		t.Errorf("Opcodes() = %d opcodes, formOpcodes %d: a store table's opcode has no form", len(got), len(formOpcodes))
	}
	if n := docIndex.Len(); n != len(opDocText) {
		t.Errorf("docIndex holds %d keys, opDocText %d", n, len(opDocText))
	}
	for _, key := range docIndex.Keys {
		if key == "" {
			continue
		}
		if d, ok := opDoc(key); !ok || d == "" {
			t.Errorf("opDoc(%q) = %q, %v", key, d, ok)
		}
	}
	if d, ok := opDoc("add"); !ok || d == "" {
		t.Errorf("no doc line for add")
	}
}

// TestGeneratedTcgen05Arch checks that the forms whose data line names the
// tcgen05 target carry tcgen05Arch, which isagen spells out.
func TestGeneratedTcgen05Arch(t *testing.T) {
	n := 0
	for i := range opForms {
		f := &opForms[i]
		if f.Opcode == "tcgen05" {
			n++
			if f.Arch.String() != tcgen05Arch.String() || f.Arch.FamilySince != tcgen05Arch.FamilySince {
				t.Errorf("line %d: %s has target %s, want %s", f.Line, f.Name, f.Arch, tcgen05Arch)
			}
		}
	}
	if n == 0 {
		t.Error("no tcgen05 form")
	}
}
