package emu

import (
	"path/filepath"
	"testing"

	"github.com/ptxkit/ptxkit/internal/qualguard"
)

// TestNoQualifierStrings keeps qualifier decoding in isa: no source file
// of the emulator (or of tmem) compares a string with a qualifier
// spelling isa knows, keys a table by one, or reads an instruction's
// qualifier strings (HasQual, in.Quals) except decodeISA (isadecode.go),
// which hands them to isa. Directive and declaration keywords (.entry,
// .reqntid, .reg) are not qualifiers and may be compared.
func TestNoQualifierStrings(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	tm, _ := filepath.Glob("tmem/*.go")
	qualguard.Check(t, append(files, tm...), qualguard.Options{
		ReadsQuals: func(file string) bool { return file == "isadecode.go" },
		MinFiles:   20,
	})
}
