package mm

import (
	"strings"
	"testing"
)

// TestConditionUnknownRegister: a register of the condition that its
// thread never names is an error at the condition's line, in litmus tests,
// mixedproxy tests and kernels; the registers it does name are accepted.
func TestConditionUnknownRegister(t *testing.T) {
	const mp = `PTX MP
{ x=0; y=0; }
 P0@cta 0,gpu 0          | P1@cta 0,gpu 0          ;
 st.relaxed.gpu x, 1     | ld.relaxed.gpu r1, y     ;
 st.relaxed.gpu y, 1     | ld.relaxed.gpu r2, x     ;
exists (P1:r1 == 1 /\ P1:COND == 0)
`
	for _, c := range []struct{ cond, err string }{
		{"P1:r1 == 1 /\\ P1:r2 == 0", ""},
		{"P1:r1 == 1 /\\ P1:r3 == 0", "6: condition: P1:r3: thread P1 has no register r3"},
		{"P0:r1 == 1", "6: condition: P0:r1: thread P0 has no register r1"},
	} {
		_, err := ParseLitmus([]byte(strings.Replace(mp, "P1:r1 == 1 /\\ P1:COND == 0", c.cond, 1)))
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.cond, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: error %v, want %q", c.cond, err, c.err)
		}
	}
	// An initial value names the register too.
	init := strings.Replace(mp, "{ x=0; y=0; }", "{ x=0; y=0; P1:r9=4; }", 1)
	if _, err := ParseLitmus([]byte(strings.Replace(init, "P1:r1 == 1 /\\ P1:COND == 0", "P1:r9 == 4", 1))); err != nil {
		t.Errorf("initialised register: %v", err)
	}
}
