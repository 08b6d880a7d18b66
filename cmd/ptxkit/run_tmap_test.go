package main

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/emu"
	"github.com/ptxkit/ptxkit/internal/tensormap"
)

// tmaTileCopy copies a tensor tile by tile: each CTA loads its 16x8 box
// with a TMA load (mbarrier expect_tx, try_wait.parity) and stores it with
// a TMA store through a second map (bulk_group commit and wait).
const tmaTileCopy = `.version 8.0
.target sm_90a
.address_size 64
.visible .entry tile_copy(
	.param .align 64 .b8 in_map[128],
	.param .align 64 .b8 out_map[128],
	.param .u64 in,
	.param .u64 out
)
{
	.reg .pred %p<4>;
	.reg .b32 %r<24>;
	.reg .b64 %rd<10>;
	.shared .align 1024 .b8 smem[512];
	.shared .align 8 .b64 bar;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, bar;
	mov.u32 %r3, smem;
	mov.u32 %r10, 0;
	mov.u32 %r4, %ctaid.x;
	shl.b32 %r4, %r4, 4;
	mov.u32 %r5, %ctaid.y;
	shl.b32 %r5, %r5, 3;
	setp.eq.u32 %p1, %r1, 0;
	@!%p1 bra WAIT;
	mbarrier.init.shared::cta.b64 [%r2], 1;
	mov.u64 %rd1, in_map;
	mbarrier.arrive.expect_tx.shared::cta.b64 %rd2, [%r2], 512;
	cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r3], [%rd1, {%r4, %r5}], [%r2];
WAIT:
	bar.sync 0;
LOOP:
	mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], %r10;
	@!%p2 bra LOOP;
	@!%p1 bra DONE;
	mov.u64 %rd3, out_map;
	cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd3, {%r4, %r5}], [%r3];
	cp.async.bulk.commit_group;
	cp.async.bulk.wait_group.read 0;
DONE:
	ret;
}
`

// TestRunTensorMapArg runs the tile copy over a 24x12 u32 tensor with a
// 2x2 grid, so that the right and bottom boxes hang over the edges: with
// every swizzle the loads unswizzle what the stores swizzle and out is the
// input, and nothing lands past the tensor.
func TestRunTensorMapArg(t *testing.T) {
	src := writeFile(t, "tma.ptx", tmaTileCopy)
	in := make([]byte, 24*12*4)
	for i := range 24 * 12 {
		binary.LittleEndian.PutUint32(in[4*i:], uint32(i*7+1))
	}
	inFile := writeFile(t, "in.bin", string(in))
	for _, sw := range []string{"none", "64B"} {
		dir := t.TempDir()
		m := "tmap:u32,dims=24x12,box=16x8,swizzle=" + sw
		code, _, errs := runCmd(t, "", "run", src, "--grid", "2,2", "--arg", m+",buf=2", "--arg", m+",buf=3",
			"--arg", "file:"+inFile, "--arg", "buf:1168:fill=0xcd", "--out", dir)
		if code != exitOK {
			t.Fatalf("swizzle %s: exit %d: %s", sw, code, errs)
		}
		out, err := os.ReadFile(filepath.Join(dir, "arg3.bin"))
		if err != nil {
			t.Fatal(err)
		}
		if string(out[:len(in)]) != string(in) {
			t.Errorf("swizzle %s: out differs from in", sw)
		}
		if strings.Trim(string(out[len(in):]), "\xcd") != "" {
			t.Errorf("swizzle %s: bytes past the tensor were written", sw)
		}
	}
	// The maps with buffers of their own (file=, size=): the kernel's
	// buffer parameters are not what the maps describe.
	dir := t.TempDir()
	m := "tmap:u32,dims=24x12,box=16x8,swizzle=128B"
	code, _, errs := runCmd(t, "", "run", src, "--grid", "2,2", "--arg", m+",file="+inFile, "--arg", m+",size=1168",
		"--arg", "buf:16", "--arg", "buf:16", "--out", dir)
	if code != exitOK {
		t.Fatalf("own buffers: exit %d: %s", code, errs)
	}
	out, err := os.ReadFile(filepath.Join(dir, "arg1.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 1168 || string(out[:len(in)]) != string(in) || strings.Trim(string(out[len(in):]), "\x00") != "" {
		t.Errorf("own buffers: the store map's buffer is not the input followed by zeros")
	}
}

func TestParseTensorMapArg(t *testing.T) {
	prm := emu.Param{Name: "map", Size: 128}
	a, err := parseArg("tmap:f16,dims=64x32x4,box=64x8x1,buf=3,swizzle=128B,oob=nan,l2=256B", prm)
	if err != nil {
		t.Fatal(err)
	}
	m := a.TensorMap
	if a.MapOf != 3 || m.Type != tensormap.F16 || m.Rank != 3 || m.Strides != [4]uint64{128, 4096} ||
		m.Box != [5]uint32{64, 8, 1} || m.ElemStrides != [5]uint32{1, 1, 1} || m.Swizzle != tensormap.Swizzle128B ||
		m.Fill != tensormap.FillNaNRequestZeroFMA || m.L2 != tensormap.L2Promote256B {
		t.Fatalf("parsed %+v", *m)
	}
	for spec, want := range map[string]string{
		"tmap:f16,dims=64x32,box=64x8":                     "needs dims=, box= and one of buf=, file= or size=",
		"tmap:f16,dims=64x32,box=64x8,buf=0,size=4096":     "needs dims=, box= and one of buf=, file= or size=",
		"tmap:f16,dims=64x32,box=64x8,size=0":              "not a size in bytes",
		"tmap:f16,dims=64x32,box=64x8,file=":               "file= needs a PATH",
		"tmap:f16,dims=64x32,box=64x8,file=/nonexistent/x": "nonexistent",
		"tmap:f8,dims=64,box=8,buf=0":                      "unknown tensor map data type",
		"tmap:f16,dims=64x32,box=64,buf=0":                 "box= needs 2 values",
		"tmap:f16,dims=64x32,box=64x8x2,buf=0":             "box= needs 2 values",
		"tmap:f16,dims=64x32,box=64x8,buf=0,strides=8":     "globalStrides[0] = 8 must be a multiple of 16",
		"tmap:f16,dims=64x32,box=64x8,buf=0,strides=128x2": "strides= needs 1 values",
		"tmap:f16,dims=64x32,box=64x8,buf=0,swizzle=16B":   "\"16B\" is not one of none, 32B, 64B, 128B",
		"tmap:f16,dims=64x32,box=64x8,buf=0,swizzle=64B":   "must not exceed the 64B swizzle span",
		"tmap:f16,dims=64x32,box=64x8,buf=0,box=8x8":       "each key once",
		"tmap:f16,dims=64x32,box=64x8,buf=0,color=red":     "unknown field",
		"tmap:f16,dims=0x32,box=64x8,buf=0":                "each value must be a number from 1",
		"tmap:f16,dims=64x32,box=64x8,buf=-1":              "not an argument index",
		"tmap:f16,dims=64x32,box=64x8,buf=0,estrides=1x9":  "each value must be a number from 1 to 8",
	} {
		if _, err := parseArg(spec, prm); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error containing %q", spec, err, want)
		}
	}
	if _, err := parseArg("tmap:f16,dims=64,box=64,buf=0", emu.Param{Name: "p", Size: 8}); err == nil || !strings.Contains(err.Error(), "128-byte parameter") {
		t.Errorf("8-byte parameter: %v", err)
	}
}
