package mm

import "testing"

// TestTerminationRMWSpin: a lock acquired by spinning on atom.exch. When
// the lock is held forever the spin never ends; when another thread
// releases it, fair scheduling lets the spinner see the release and win.
func TestTerminationRMWSpin(t *testing.T) {
	const held = `PTX spin-exch-held
{ m=1; }
 P0@cta 0,gpu 0                     ;
 LC00:                              ;
 atom.acquire.gpu.exch r0, m, 1     ;
 bne r0, 0, LC00                    ;
exists (P0:r0 == 0)
`
	const released = `PTX spin-exch-released
{ m=1; }
 P0@cta 0,gpu 0                     | P1@cta 1,gpu 0          ;
 LC00:                              | st.release.gpu m, 0     ;
 atom.acquire.gpu.exch r0, m, 1     |                         ;
 bne r0, 0, LC00                    |                         ;
exists (P0:r0 == 0)
`
	for src, hangs := range map[string]bool{held: true, released: false} {
		prog, err := ParseLitmus([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range []Model{PTXv60, PTXv75} {
			res, err := CheckTermination(prog, m)
			if err != nil {
				t.Fatal(err)
			}
			if res.Reachable != hangs || res.Pass == hangs {
				t.Errorf("%s %s: non-termination reachable %v, want %v", prog.Name, m, res.Reachable, hangs)
			}
		}
	}
}
