// Package sass assembles, disassembles, lowers and executes the SASS store
// instructions STS and STL (and, for comparison, STG, ST and STAS) of NVIDIA
// GPUs from Maxwell (SM50) to Blackwell (SM100-SM120; STS, STL and STG).
//
// The instruction text follows nvdisasm (CUDA 12.5; CUDA 13.0 on Blackwell,
// where only its vectors are known). The parser also accepts
// the notation of the "SPA 5.0" opcode page (seed 004: ".8/.16/.32/.WB"
// spellings, "[Ra - 16]", "[ImmU24]"). Encodings come from one table of
// formats (table.go) that both the encoder and the decoder read, so that
// encoding is the exact inverse of decoding. Field positions are those of
// ENCODING.md tables T1-T3.
package sass

import (
	"fmt"
	"strconv"
	"strings"
)

// Gen is an encoding generation: the instruction word layout shared by a
// group of architectures.
type Gen uint8

const (
	// Maxwell is SM50-SM62: 64-bit instruction words in 32-byte bundles with
	// one control word per three instructions (ENCODING.md T1, T2).
	Maxwell Gen = iota + 1
	// Turing is SM75-SM120: 128-bit instruction words carrying their own
	// scheduling bits (ENCODING.md T3; Blackwell in docs/sass-blackwell.md).
	Turing
)

// Arch is a target architecture, identified by its SM number (50, 90, ...).
type Arch struct {
	SM int
}

// Archs lists the supported architectures in order.
var Archs = []Arch{{50}, {52}, {53}, {60}, {61}, {62}, {75}, {80}, {86}, {89}, {90}, {100}, {103}, {110}, {120}}

// ParseArch accepts "sm_90", "SM90", "sm90", "90" and "compute_90" style names
// (a trailing "a" or "f" as in sm_90a or sm_100f is accepted and ignored).
func ParseArch(s string) (Arch, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	for _, p := range []string{"sm_", "sm", "compute_"} {
		if strings.HasPrefix(t, p) {
			t = t[len(p):]
			break
		}
	}
	if len(t) > 2 && (t[len(t)-1] == 'a' || t[len(t)-1] == 'f') {
		t = t[:len(t)-1]
	}
	n, err := strconv.Atoi(t)
	if err == nil {
		for _, a := range Archs {
			if a.SM == n {
				return a, nil
			}
		}
	}
	return Arch{}, fmt.Errorf("unsupported architecture %q (want one of %s)", clip(s), archList())
}

func archList() string {
	var b strings.Builder
	for i, a := range Archs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(a.String())
	}
	return b.String()
}

// Gen returns the encoding generation of the architecture.
func (a Arch) Gen() Gen {
	if a.SM < 70 {
		return Maxwell
	}
	return Turing
}

// String returns "sm_90".
func (a Arch) String() string { return fmt.Sprintf("sm_%d", a.SM) }

// Nvdisasm returns the name nvdisasm --binary expects: "SM90".
func (a Arch) Nvdisasm() string { return fmt.Sprintf("SM%d", a.SM) }

// WordBytes is the size of one instruction word in bytes (8 or 16).
func (a Arch) WordBytes() int {
	if a.Gen() == Maxwell {
		return 8
	}
	return 16
}
