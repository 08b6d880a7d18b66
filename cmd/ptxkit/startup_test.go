//go:build !(js && wasm)

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// initProbeEnv makes the test binary exit as soon as its package inits
// have run (TestMain), for TestStartupInitCost.
const initProbeEnv = "PTXKIT_INIT_PROBE"

// TestStartupInitCost runs this test binary, which links the packages of
// the command, with GODEBUG=inittrace=1 and bounds what the inits of the
// project's packages allocate: their tables are generated data or built on
// first use (docs/startup.md), so that every command, check of a
// three-line module included, starts without building them. The bounds
// are about twice today's figures (isa 52 KB, emu 23 KB, sass 11 KB, in
// all about 100 KB in 330 allocations; 660 KB in 2,700 before).
func TestStartupInitCost(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), initProbeEnv+"=1", "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("probe: %v\n%s", err, stderr.String())
	}
	bounds := map[string]int{"isa": 96 << 10, "sass": 24 << 10, "emu": 48 << 10, "mm": 8 << 10,
		"ptx/resolve": 8 << 10, "internal/lsp": 16 << 10, "check": 8 << 10}
	total, allocs, seen := 0, 0, 0
	sc := bufio.NewScanner(&stderr)
	for sc.Scan() {
		// init github.com/ptxkit/ptxkit/isa @1.2 ms, 0.2 ms clock, 52432 bytes, 100 allocs
		var pkg string
		var at, clock float64
		var b, a int
		if _, err := fmt.Sscanf(sc.Text(), "init %s @%g ms, %g ms clock, %d bytes, %d allocs", &pkg, &at, &clock, &b, &a); err != nil {
			continue
		}
		name, ok := strings.CutPrefix(pkg, "github.com/ptxkit/ptxkit/")
		bound, listed := bounds[name]
		if !ok || !listed {
			continue
		}
		seen++
		total += b
		allocs += a
		if b > bound {
			t.Errorf("init of %s allocates %d bytes, more than %d: a table built at start-up?", name, b, bound)
		}
	}
	if seen < 4 {
		t.Fatalf("inittrace named %d of the project's packages:\n%s", seen, stderr.String())
	}
	if total > 200<<10 || allocs > 800 {
		t.Errorf("the project's package inits allocate %d bytes in %d allocations (bounds 200 KiB, 800)", total, allocs)
	}
}
