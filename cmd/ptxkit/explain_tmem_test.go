package main

import (
	"bytes"
	"strings"
	"testing"
)

// layoutSection runs explain on inst and returns its "layout" section
// without the title column.
func layoutSection(t *testing.T, inst string) string {
	t.Helper()
	var out, errb bytes.Buffer
	run([]string{"explain", inst}, strings.NewReader(""), &out, &errb)
	var b strings.Builder
	in := false
	for _, l := range strings.Split(out.String(), "\n") {
		if len(l) < 13 {
			continue
		}
		if head := strings.TrimSpace(l[:12]); head != "" {
			in = head == "layout"
		}
		if in {
			b.WriteString(strings.TrimRight(l[13:], " ") + "\n")
		}
	}
	return b.String()
}

func TestExplainTMEMLayout(t *testing.T) {
	got := layoutSection(t, "tcgen05.st.sync.aligned.16x64b.x2.b32 [%r1], {%r2, %r3};")
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if len(lines) != 34 || lines[0] != ".16x64b.x2: 2 register(s) per thread; lanes taddr+0..15, columns taddr+0..3" {
		t.Fatalf("layout section:\n%s", got)
	}
	// Thread 3 stores r0 to lane 8 column 1 and r1 to lane 8 column 3.
	if f := strings.Fields(lines[2+3]); strings.Join(f, " ") != "3 8,1 8,3" {
		t.Errorf("thread 3 row %q", lines[2+3])
	}

	// tcgen05.ld with the split offset as its last operand, packed.
	got = layoutSection(t, "tcgen05.ld.sync.aligned.16x32bx2.x2.pack::16b.b32 {%r2, %r3}, [%r1], 4;")
	lines = strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if !strings.HasPrefix(lines[0], ".16x32bx2.x2.pack::16b (imm 4): 2 register(s) per thread; lanes taddr+0..15, columns taddr+0..7") {
		t.Fatalf("header %q", lines[0])
	}
	if f := strings.Fields(lines[2+17]); strings.Join(f, " ") != "17 1,4-5 1,6-7" {
		t.Errorf("thread 17 row %q", lines[2+17])
	}

	// No layout for other instructions or for forms Table 50 rejects.
	for _, inst := range []string{
		"st.global.u32 [%rd1], %r1;",
		"tcgen05.st.sync.aligned.16x256b.x64.b32 [%r1], {%r2};",
		"tcgen05.wait::st.sync.aligned;",
	} {
		if got := layoutSection(t, inst); got != "" {
			t.Errorf("%s: unexpected layout section:\n%s", inst, got)
		}
	}
}
