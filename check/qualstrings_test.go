package check

import (
	"path/filepath"
	"testing"

	"github.com/ptxkit/ptxkit/internal/qualguard"
)

// TestNoQualifierStrings keeps qualifier decoding in isa: no source file
// of the package compares a string with a qualifier spelling isa knows,
// keys a table by one, or calls HasQual; rules read decoded isa.Quals.
// Reading in.Quals for positions and messages is allowed.
func TestNoQualifierStrings(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	qualguard.Check(t, files, qualguard.Options{
		MinFiles: 10,
	})
}
