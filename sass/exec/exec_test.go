package exec

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/ptxkit/ptxkit/sass"
)

var sm50 = sass.Arch{SM: 50}

// setup returns a thread with a 64-byte local and a 256-byte shared
// allocation.
func setup() (*Thread, Bytes, Bytes) {
	local, shared := make(Bytes, 64), make(Bytes, 256)
	t := &Thread{ID: 7, CTA: 2, Local: &Window{Name: "local", Mem: local}, Shared: &Window{Name: "shared", Mem: shared}}
	for i := range t.R {
		t.R[i] = 0x11111111 * uint32(i%16)
	}
	return t, local, shared
}

func inst(t *testing.T, text string, arch sass.Arch) sass.Inst {
	t.Helper()
	in, ok, err := sass.ParseLine(text, 1, arch)
	if err != nil || !ok {
		t.Fatalf("%q: %v", text, err)
	}
	return in
}

func run(t *testing.T, th *Thread, text string, cfg Config) error {
	t.Helper()
	return Exec(inst(t, text, sm50), sm50, th, cfg)
}

func TestStoreWidths(t *testing.T) {
	th, local, shared := setup()
	th.R[4], th.R[5], th.R[6], th.R[7] = 0x03020100, 0x07060504, 0x0b0a0908, 0x0f0e0d0c
	th.R[1] = 16
	for _, s := range []string{"STS.128 [R1+0x10], R4", "STS.64 [R1+0x30], R4", "STS.U16 [R1+0x40], R4", "STS.S8 [R1+0x50], R4", "STL [0x8], R5"} {
		if err := run(t, th, s, Config{}); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	want := []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}
	if !bytes.Equal(shared[32:48], want) || !bytes.Equal(shared[64:72], want[:8]) || !bytes.Equal(shared[80:82], want[:2]) || shared[82] != 0 || shared[96] != 0 || shared[97] != 0 {
		t.Errorf("shared = % x", shared[:100])
	}
	if !bytes.Equal(local[8:12], []byte{4, 5, 6, 7}) {
		t.Errorf("local = % x", local[:16])
	}
}

func TestForcedAlignment(t *testing.T) {
	th, _, shared := setup()
	th.R[1] = 0x20
	th.R[8] = 0xaabbccdd
	if err := run(t, th, "STS [R1+0x3], R8", Config{}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(shared[0x20:0x24], []byte{0xdd, 0xcc, 0xbb, 0xaa}) || shared[0x23+1] != 0 {
		t.Errorf("misaligned STS not forced to 0x20: % x", shared[0x20:0x28])
	}
	th.R[12] = 0x01020304
	if err := run(t, th, "STS.128 [R1+0x1c], R12", Config{}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(shared[0x30:0x34], []byte{4, 3, 2, 1}) || !bytes.Equal(shared[0x3c:0x41], []byte{0xff, 0xff, 0xff, 0xff, 0}) {
		t.Errorf(".128 at 0x3c not forced to 0x30: % x", shared[0x30:0x44])
	}
}

func TestMisalignedTrap(t *testing.T) {
	th, _, shared := setup()
	th.R[1] = 0x20
	err := run(t, th, "STS.64 [R1+0x4], R2", Config{TrapMisaligned: true})
	var f *Fault
	if !errors.As(err, &f) || f.Kind != Misaligned || f.Addr != 0x24 || f.Size != 8 {
		t.Fatalf("got %v, want a misaligned fault at 0x24", err)
	}
	if !bytes.Equal(shared[0x20:0x30], make([]byte, 16)) {
		t.Error("faulting store wrote memory")
	}
	if !strings.Contains(err.Error(), `"STS.64 [R1+0x4], R2" by thread 7 in CTA 2`) {
		t.Errorf("report lacks instruction/thread: %v", err)
	}
	if err := run(t, th, "STS.U8 [R1+0x3], R2", Config{TrapMisaligned: true}); err != nil {
		t.Errorf("byte store is never misaligned: %v", err)
	}
}

func TestAbsoluteAndNegative(t *testing.T) {
	th, local, shared := setup()
	th.R[3] = 0x12
	if err := run(t, th, "STS.U8 [0x12], R3", Config{}); err != nil || shared[0x12] != 0x12 {
		t.Errorf("absolute: %v, % x", err, shared[0x10:0x14])
	}
	// RZ base is absolute: R0 has a nonzero value that must not be added.
	if err := run(t, th, "STS.U8 [RZ+0x13], R3", Config{}); err != nil || shared[0x13] != 0x12 {
		t.Errorf("RZ base: %v", err)
	}
	th.R[2] = 0x30
	if err := run(t, th, "STL.U16 [R2 - 16], R3", Config{}); err != nil || local[0x20] != 0x12 {
		t.Errorf("negative offset: %v, % x", err, local[0x20:0x22])
	}
	if err := run(t, th, "STL [R2+-0x8], RZ", Config{}); err != nil {
		t.Errorf("negative offset with RZ data: %v", err)
	}
}

func TestOutOfWindow(t *testing.T) {
	cases := []struct {
		text string
		r1   uint32
		kind FaultKind
		win  string
	}{
		{"STS [R1], R2", 0x100, OutsideAlloc, "shared"},       // just past 256 bytes
		{"STS.128 [R1+0xf8], R4", 0, OutsideAlloc, "shared"},  // forced to 0xf0: inside
		{"STS [0xfffffc], R2", 0, OutsideAlloc, "shared"},     // in the window, not allocated
		{"STS [R1], R2", 0x1000000, OutsideWindow, "shared"},  // 16 MiB window
		{"STL [R1+-0x4], R2", 0, OutsideWindow, "local"},      // negative address
		{"STL.64 [R1], R2", 0x40, OutsideAlloc, "local"},      // 64 bytes allocated
		{"STL.128 [0xfffff8], R4", 0, OutsideWindow, "local"}, // crosses the window end
		{"STL [R1+0x7ffffc], R2", 0xffffff00, OutsideWindow, "local"},
	}
	for _, c := range cases {
		th, _, _ := setup()
		th.R[1] = c.r1
		err := run(t, th, c.text, Config{})
		if c.text == "STS.128 [R1+0xf8], R4" {
			if err != nil {
				t.Errorf("%s: %v (forced alignment keeps it inside)", c.text, err)
			}
			continue
		}
		var f *Fault
		if !errors.As(err, &f) || f.Kind != c.kind || f.Window != c.win {
			t.Errorf("%s with R1=0x%x: got %v, want %s fault in %s", c.text, c.r1, err, faultNames[c.kind], c.win)
		}
	}
}

func TestPredicateAndTuring(t *testing.T) {
	th, _, shared := setup()
	sm90 := sass.Arch{SM: 90}
	th.P[0] = false
	if err := Exec(inst(t, "@P0 STS [0x0], R1", sm90), sm90, th, Config{}); err != nil || shared[0] != 0 {
		t.Errorf("@P0 with P0 false stored: %v", err)
	}
	if err := Exec(inst(t, "@!P0 STS [0x0], R1", sm90), sm90, th, Config{}); err != nil || shared[0] != 0x11 {
		t.Errorf("@!P0 with P0 false did not store: %v", err)
	}
	th.R[6], th.UR[4] = 3, 0x40
	if err := Exec(inst(t, "STS.U8 [R6.X16+UR4+-0x8], R1", sm90), sm90, th, Config{}); err != nil || shared[0x30+0x40-8] != 0x11 {
		t.Errorf("[R6.X16+UR4-8]: %v", err)
	}
	if err := Exec(inst(t, "STS.U8 [UR4+-0x10], R1", sm90), sm90, th, Config{}); err != nil || shared[0x30] != 0x11 {
		t.Errorf("[UR4-16] (signed with RZ in the UR form): %v", err)
	}
}

func TestInvalidSize(t *testing.T) {
	th, _, _ := setup()
	var f *Fault
	if err := run(t, th, "STS.INVALIDSIZE7 [R1], R0", Config{}); !errors.As(err, &f) || f.Kind != InvalidEncoding {
		t.Errorf("got %v", err)
	}
}

func TestEffectiveAddressPair(t *testing.T) {
	th, _, _ := setup()
	in := sass.NewInst(sass.STS)
	in.Ra, in.E, in.Off = 2, true, -8
	th.R[2], th.R[3] = 0x10, 0x1
	if a, ok := EffectiveAddress(in, th); !ok || a != 0x1_0000_0008 {
		t.Errorf("{R3, R2}-8 = %#x, %v", a, ok)
	}
	var f *Fault
	if err := Exec(in, sm50, th, Config{}); !errors.As(err, &f) || f.Kind != OutsideWindow {
		t.Errorf("64-bit address beyond the window: %v", err)
	}
	in.E = false
	if a, ok := EffectiveAddress(in, th); !ok || a != 0x8 {
		t.Errorf("R2-8 = %#x, %v", a, ok)
	}
}
