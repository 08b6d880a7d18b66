package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// chromiumPath finds a headless-capable Chromium, or "".
func chromiumPath() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// TestPlaygroundInChromium builds the playground (scripts/playground.sh),
// serves the folder from a loopback server and loads the page in headless
// Chromium with ?autorun=1: the page checks a kernel with a mistake and
// shows the diagnostic under its line, explains the instruction as a
// hover would, and runs the built-in example with its timeline.
func TestPlaygroundInChromium(t *testing.T) {
	chromium := chromiumPath()
	if chromium == "" {
		t.Skip("no chromium on PATH: the playground's end-to-end test needs one (Debian: apt-get install chromium)")
	}
	if testing.Short() {
		t.Skip("-short: the playground test builds ptxkit for WebAssembly")
	}
	dir := t.TempDir()
	build := exec.Command("sh", "../../scripts/playground.sh", dir)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("scripts/playground.sh: %v\n%s", err, out)
	}
	for _, f := range []string{"index.html", "playground.js", "wasm_exec.js", "ptxkit.wasm"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Fatalf("the playground lacks %s", f)
		}
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer srv.Close()
	dom := loadPage(t, chromium, srv.URL+"/index.html?autorun=1")
	for _, want := range []string{
		// the diagnostic, under line 13 of the kernel with a mistake
		`<span class="line has-error instr" data-line="13"><span class="no">13</span>	st.global.relaxed.u32 [%rd2], %r1;</span><span class="diag error">11: error: .relaxed requires a scope [st-sem-scope]`,
		// explain, as the hover shows it
		"semantics    strong relaxed store",
		// the built-in example's run
		"completed", "[0] 101 102 103 104", "[4] 1 2 3 4",
		"CTA (0,0,0) · cluster 0 rank 0 · warp 0",
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if n := strings.Count(dom, `class="slice wait"`); n != 4 {
		t.Errorf("timeline: %d wait slices, want 4", n)
	}
	if n := strings.Count(dom, `class="flow"`); n != 4 {
		t.Errorf("timeline: %d flow segments, want 4 (two st.async: issue to landing to the wait)", n)
	}
	// A kernel of the reference set picked from the list, with its picture.
	dom = loadPage(t, chromium, srv.URL+"/index.html?autorun=tmem")
	if n := strings.Count(dom, `<rect class="cell" `); n != 128*8 {
		t.Errorf("Tensor Memory picture: %d stored cells, want %d", n, 128*8)
	}
	if !strings.Contains(dom, "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32") {
		t.Error("the picked example's source is not in the editor")
	}
}

// loadPage loads url in headless Chromium and returns the DOM once the
// page's autorun is done.
func loadPage(t *testing.T, chromium, url string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--user-data-dir="+t.TempDir(), "--virtual-time-budget=60000", "--dump-dom", url)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	dom := string(out)
	if !strings.Contains(dom, `data-autorun="done"`) {
		t.Fatalf("the page did not finish its run (status: %s)", regexp.MustCompile(`id="status">[^<]*`).FindString(dom))
	}
	return dom
}
