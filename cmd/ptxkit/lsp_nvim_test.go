package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLSPNeovim drives ptxkit lsp from a real client: Neovim, headless,
// with the configuration in editors/nvim. The script
// (editors/nvim/e2e_test.lua) opens a file with a mistake, waits for the
// diagnostic, hovers, jumps to a definition and fixes the mistake; this
// test checks what it saw. It skips when nvim is not installed.
func TestLSPNeovim(t *testing.T) {
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		t.Skip("nvim is not on PATH (Debian: apt-get install neovim); the Neovim end-to-end test is skipped")
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "ptxkit")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	src, err := os.ReadFile("../../internal/lsp/testdata/kernel.ptx")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(tmp, "kernel.ptx")
	if err := os.WriteFile(file, src, 0o644); err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs("../../editors/nvim/e2e_test.lua")
	if err != nil {
		t.Fatal(err)
	}
	outFile := filepath.Join(tmp, "result.json")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvim, "--headless", "--clean", "-n", "-i", "NONE", "-c", "luafile "+script)
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "PTXKIT_BIN="+bin, "PTXKIT_E2E_FILE="+file, "PTXKIT_E2E_OUT="+outFile,
		"HOME="+tmp, "XDG_CONFIG_HOME="+tmp, "XDG_DATA_HOME="+tmp, "XDG_STATE_HOME="+tmp, "XDG_CACHE_HOME="+tmp)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("nvim: %v\n%s", err, stderr.String())
	}
	raw, err := os.ReadFile(outFile)
	if err != nil {
		t.Fatalf("no result from nvim: %v\n%s", err, stderr.String())
	}
	var res struct {
		Error       string
		Filetype    string
		Diagnostics []struct {
			Lnum, Col     int
			Message, Code string
		}
		Hover      string
		Definition struct {
			Row, Col int
			Line     string
		}
		AfterFix *int `json:"after_fix"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	if res.Error != "" {
		t.Fatalf("the script failed: %s\n%s", res.Error, raw)
	}
	lines := strings.Split(string(src), "\n")
	lineOf := func(s string) (int, int) {
		for i, l := range lines {
			if c := strings.Index(l, s); c >= 0 {
				return i, c
			}
		}
		t.Fatalf("%q not in the file", s)
		return 0, 0
	}
	if res.Filetype != "ptx" {
		t.Errorf("filetype %q", res.Filetype)
	}
	// Neovim's diagnostic columns are bytes.
	l, c := lineOf(".relaxed")
	if len(res.Diagnostics) != 1 || res.Diagnostics[0].Lnum != l || res.Diagnostics[0].Col != c ||
		res.Diagnostics[0].Code != "st-sem-scope" || res.Diagnostics[0].Message != ".relaxed requires a scope" {
		t.Errorf("diagnostics %+v, want st-sem-scope at %d:%d", res.Diagnostics, l, c)
	}
	for _, want := range []string{"st.global.relaxed.u32 [%rd1], %r1;", "state space  .global", "requires     PTX ISA 6.0, sm_70 or higher", "[st-sem-scope]"} {
		if !strings.Contains(res.Hover, want) {
			t.Errorf("hover lacks %q:\n%s", want, res.Hover)
		}
	}
	l, c = lineOf(".reg .b32 %r<4>;")
	c += len(".reg .b32 ")
	if res.Definition.Row != l+1 || res.Definition.Col != c {
		t.Errorf("definition jumped to %+v, want row %d col %d", res.Definition, l+1, c)
	}
	if res.AfterFix == nil || *res.AfterFix != 0 {
		t.Errorf("after the fix: %v diagnostics", res.AfterFix)
	}
}
