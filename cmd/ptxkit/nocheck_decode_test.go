package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunNoCheckDecodes checks that --no-check skips validation but not
// decoding: an instruction isa does not know is an error, positioned at
// the unknown qualifier or opcode.
func TestRunNoCheckDecodes(t *testing.T) {
	for _, c := range []struct{ inst, want string }{
		{"st.global.frobnicate.u32 [%rd1], %r1;", "k.ptx:10:11: error: unknown qualifier .frobnicate on st [emu-decode]"},
		{"addd.u32 %r1, %r1, 1;", "k.ptx:10:2: error: unknown instruction addd; did you mean add? [emu-decode]"},
	} {
		src := strings.Replace(validPTX, "st.global.u32 [%rd1], %r1;", c.inst, 1)
		path := filepath.Join(t.TempDir(), "k.ptx")
		if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := runCmd(t, "", "run", "--no-check", path)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want a failure with %q", c.inst, code, stderr, c.want)
		}
	}
}
