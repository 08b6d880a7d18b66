package cudrv

import (
	"encoding/hex"
	"testing"
)

// MD2 test vectors of RFC 1319.
func TestMD2(t *testing.T) {
	for in, want := range map[string]string{
		"":                           "8350e5a3e24c153df2275c9f80692773",
		"abc":                        "da853b0d3f88d99b30283a69e6ded6bb",
		"message digest":             "ab4f496bfb2a530b219ff33031fe06b0",
		"abcdefghijklmnopqrstuvwxyz": "4e8ddff3650292ab5a4108c3aa47940b",
	} {
		var h md2
		h.write([]byte(in))
		got := h.sum()
		if hex.EncodeToString(got[:]) != want {
			t.Errorf("MD2(%q) = %x, want %s", in, got, want)
		}
	}
}

// A published sample of the challenge (runtime 11.8 with driver 12.2 on
// one device), and the fixed answers.
func TestIntegrityHash(t *testing.T) {
	in := IntegrityInput{
		DriverVersion: 12020, RuntimeVersion: 0x2B4A, ProcessID: 0x4D08, ThreadID: 0x2B78,
		RuntimeTable: 0x00007FF8C80717F0, CheckTable: 0x00007FF8C825E4B0, CheckFunc: 0x00007FF8C7DD0AD0,
		Timestamp: 0x64A365EE,
		Devices: []IntegrityDevice{{
			UUID:   [16]byte{0x67, 0x22, 0xCB, 0xCF, 0xC6, 0x61, 0xF2, 0x92, 0x74, 0xD6, 0xED, 0x23, 0x2A, 0x32, 0x13, 0x1C},
			PCIBus: 4,
		}},
	}
	got := IntegrityHash(in)
	// 0xEAF1313342BFCD84A7C34628F214707A as little-endian bytes.
	if want := "7a7014f22846c3a784cdbf423331f1ea"; hex.EncodeToString(got[:]) != want {
		t.Errorf("hash %x, want %s", got, want)
	}
	in.RuntimeVersion = 12050
	if got := IntegrityHash(in); got != integrityFixed {
		t.Errorf("12050: %x", got)
	}
	in.RuntimeVersion = 12051
	if got := IntegrityHash(in); got[7] != 24 || got[0] != integrityFixed[0] {
		t.Errorf("12051: %x", got)
	}
}
