package tmem

import (
	"testing"

	"github.com/ptxkit/ptxkit/isa"
)

// TestFormOf reads tcgen05.st/ld forms from qualifiers as isa decodes them.
func TestFormOf(t *testing.T) {
	tests := []struct {
		quals []string
		load  bool
		want  Form
		rule  Rule
	}{
		{[]string{".sync", ".aligned", ".16x64b", ".x4", ".b32"}, false, Form{Shape: Shape16x64b, Num: 4}, ""},
		{[]string{".sync", ".aligned", ".16x128b", ".x1", ".unpack::16b", ".b32"}, false, Form{Shape: Shape16x128b, Num: 1, Packed: true}, ""},
		{[]string{".32x32b", ".x128", ".pack::16b"}, true, Form{Shape: Shape32x32b, Num: 128, Packed: true}, ""},
		{[]string{".16x32bx2", ".x2"}, true, Form{Shape: Shape16x32bx2, Num: 2}, ""},
		{[]string{".16x64b", ".x4", ".pack::16b"}, false, Form{}, RuleForm},
		{[]string{".16x64b", ".x4", ".unpack::16b"}, true, Form{}, RuleForm},
		{[]string{".x4", ".b32"}, false, Form{}, RuleForm},
		{[]string{".16x64b", ".b32"}, false, Form{}, RuleForm},
		{[]string{".16x64b", ".32x32b", ".x1"}, false, Form{}, RuleForm},
		{[]string{".16x64b", ".x1", ".x2"}, false, Form{}, RuleForm},
		{[]string{".16x256b", ".x64"}, false, Form{}, RuleForm},
		{[]string{".16x64b", ".x3"}, false, Form{}, RuleForm},
	}
	for _, tt := range tests {
		got, err := FormOf(isa.LookupQuals(tt.quals, nil), tt.load)
		if tt.rule != "" {
			wantRule(t, err, tt.rule)
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("FormOf(%q, %v) = %+v, %v; want %+v", tt.quals, tt.load, got, err, tt.want)
		}
	}
}
