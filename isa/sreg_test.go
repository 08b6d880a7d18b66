package isa

import "testing"

// TestSRegTable checks the special-register table: every kind appears,
// names are unique and found by LookupSReg, the numbered families have
// their PTX ISA counts (%pm0-7, %pm0_64-%pm7_64, %envreg0-31), and each
// entry has a type, a version, a target, a section of chapter 10 and a
// meaning.
func TestSRegTable(t *testing.T) {
	kinds := map[SRegKind]int{}
	for _, r := range SRegs() {
		kinds[r.Kind]++
		if LookupSReg(r.Name) != r {
			t.Errorf("LookupSReg(%q) does not find its entry", r.Name)
		}
		if r.Type == QNone || r.PTX == 0 || r.Arch.Min == 0 || r.Meaning == "" || len(r.Section) < len("PTX ISA 10.1") {
			t.Errorf("%s: incomplete entry %+v", r.Name, *r)
		}
	}
	for k := SRegNone + 1; k < numSRegKinds; k++ {
		want := 1
		if n, ok := sregCount[k]; ok {
			want = n
		}
		if kinds[k] != want {
			t.Errorf("kind %d has %d entries, want %d", k, kinds[k], want)
		}
	}
	for name, idx := range map[string]int{"%pm7": 7, "%pm0_64": 0, "%envreg31": 31, "%envreg0": 0} {
		if r := LookupSReg(name); r == nil || r.Index != idx {
			t.Errorf("LookupSReg(%q) = %v, want index %d", name, r, idx)
		}
	}
	for _, name := range []string{"%pm8", "%envreg32", "%tid.x", "%cluster", "tid", "%pm_64"} {
		if r := LookupSReg(name); r != nil {
			t.Errorf("LookupSReg(%q) = %s, want nil", name, r.Name)
		}
	}
}
