package main

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunTextureAndSurfaceArgs: --arg tex:... passes a texture object
// (read with linear filtering) and --arg surf:... a surface object that
// the kernel writes and --out writes back; a texel file of the wrong size
// and an unknown option are refused.
func TestRunTextureAndSurfaceArgs(t *testing.T) {
	src := writeFile(t, "t.ptx", `.version 8.5
.target sm_90
.address_size 64
.visible .entry k(.param .u64 t, .param .u64 s)
{
	.reg .b64 %rd<3>;
	.reg .f32 %f<6>;
	.reg .b32 %r<3>;
	ld.param.u64 %rd1, [t];
	ld.param.u64 %rd2, [s];
	mov.f32 %f5, 0f3FA00000;
	tex.1d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5}];
	mov.b32 %r1, %f1;
	mov.u32 %r2, 4;
	sust.b.1d.b32.trap [%rd2, {%r2}], %r1;
	ret;
}
`)
	texels := make([]byte, 16)
	for i, v := range []float32{0, 10, 20, 40} {
		binary.LittleEndian.PutUint32(texels[4*i:], math.Float32bits(v))
	}
	texFile := writeFile(t, "tex.bin", string(texels))
	dir := t.TempDir()
	code, _, errs := runCmd(t, "", "run", src, "--block", "1", "--arg", "tex:4x1:f32:file="+texFile+":linear:clamp", "--arg", "surf:2x1:u32", "--out", dir)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(filepath.Join(dir, "arg1.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if got := math.Float32frombits(binary.LittleEndian.Uint32(b[4:])); len(b) != 8 || got != 7.5 {
		t.Errorf("the surface holds %v (%d bytes), want 7.5 at texel 1", got, len(b))
	}
	for _, c := range []struct{ arg, want string }{
		{"tex:5x1:f32:file=" + texFile, "need 20 bytes; the buffer has 16"},
		{"tex:4x1:f32:bilinear", `unknown option "bilinear"`},
		{"tex:4x1:f64", "texel format"},
	} {
		code, _, errs := runCmd(t, "", "run", src, "--block", "1", "--arg", c.arg, "--arg", "surf:2x1:u32")
		if code == exitOK || !strings.Contains(errs, c.want) {
			t.Errorf("%s: exit %d, %q; want %q", c.arg, code, errs, c.want)
		}
	}
}
