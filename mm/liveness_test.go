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
	// P0 spins until its exchange returns 1, P1 exchanges 0 in: P0's first
	// exchange may read 0, but its own write of 1 is then what the next
	// iteration reads, so it cannot spin forever.
	const selfRelease = `PTX spin-exch-self
{ m=0; }
 P0@cta 0,gpu 0                     | P1@cta 0,gpu 0                  ;
 LC00:                              | atom.relaxed.gpu.exch r1, m, 0  ;
 atom.relaxed.gpu.exch r0, m, 1     |                                 ;
 bne r0, 1, LC00                    |                                 ;
exists (P0:r0 == 1)
`
	// P1 stores 1 and reads until it sees non-zero; P0 swaps 0 in until it
	// reads non-zero. P1 may read P0's 0, but its next iteration stores 1
	// again: the iteration is not a fixed point, so it does not hang.
	const restore = `PTX store-spin
{ m=0; }
 P0@cta 0,gpu 0                     | P1@cta 0,gpu 0                  ;
 LC00:                              | LC10:                           ;
 atom.relaxed.gpu.exch r0, m, 0     | st.relaxed.gpu m, 1             ;
 bne r0, 0, LC01                    | ld.relaxed.gpu r1, m            ;
 goto LC00                          | bne r1, 0, LC11                 ;
 LC01:                              | goto LC10                       ;
                                    | LC11:                           ;
exists (P0:r0 == 1)
`
	for src, hangs := range map[string]bool{held: true, released: false, selfRelease: false, restore: false} {
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
