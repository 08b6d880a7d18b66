package isa

import (
	"fmt"
	"strconv"
	"strings"
)

// Version is a PTX ISA version, major<<8 | minor ("8.5" is 0x0805).
// The zero Version means "unknown" or "no requirement".
type Version uint16

// V returns the version major.minor.
func V(major, minor int) Version { return Version(major<<8 | minor) }

// Major returns the major part of v.
func (v Version) Major() int { return int(v >> 8) }

// Minor returns the minor part of v.
func (v Version) Minor() int { return int(v & 0xff) }

func (v Version) String() string {
	if v == 0 {
		return "?"
	}
	return fmt.Sprintf("%d.%d", v.Major(), v.Minor())
}

// ParseVersion parses "8.5" (as written after .version).
func ParseVersion(s string) (Version, error) {
	maj, min, ok := strings.Cut(s, ".")
	a, err1 := strconv.Atoi(maj)
	b, err2 := strconv.Atoi(min)
	if !ok || err1 != nil || err2 != nil || a < 1 || a > 99 || b < 0 || b > 99 || strings.HasPrefix(min, "+") {
		return 0, fmt.Errorf("invalid PTX ISA version %q (want MAJOR.MINOR, e.g. 8.5)", s)
	}
	return V(a, b), nil
}

// Target is a .target architecture: sm_90, sm_90a, sm_100f. compute_XY is
// read as sm_XY (DIGEST §9, Table 58).
type Target struct {
	SM     int  // 90 for sm_90a
	Suffix byte // 0, 'a' (architecture-specific) or 'f' (family-specific)
}

func (t Target) String() string {
	if t.SM == 0 {
		return "?"
	}
	s := "sm_" + strconv.Itoa(t.SM)
	if t.Suffix != 0 {
		s += string(t.Suffix)
	}
	return s
}

// ParseTarget parses an architecture name: sm_90, sm_90a, sm_100f,
// compute_80.
func ParseTarget(s string) (Target, error) {
	rest, ok := strings.CutPrefix(s, "sm_")
	if !ok {
		rest, ok = strings.CutPrefix(s, "compute_")
	}
	if !ok || rest == "" {
		return Target{}, fmt.Errorf("invalid target %q (want sm_XY, sm_XYa or sm_XYf)", s)
	}
	var t Target
	if c := rest[len(rest)-1]; c == 'a' || c == 'f' {
		t.Suffix = c
		rest = rest[:len(rest)-1]
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n < 10 || n > 999 || rest[0] == '+' || rest[0] == '-' {
		return Target{}, fmt.Errorf("invalid target %q (want sm_XY, sm_XYa or sm_XYf)", s)
	}
	t.SM = n
	return t, nil
}

// family returns the architecture family of an SM number (DIGEST §9):
// sm_10x, sm_11x (which includes sm_101, renamed sm_110 in PTX 9.0) and
// sm_12x. Older architectures have no family-specific targets.
func family(sm int) int {
	if sm == 101 {
		return 11
	}
	if sm >= 100 {
		return sm / 10
	}
	return 0
}

// targetSince lists the PTX ISA version that introduced each target
// (PTX ISA Table 59, DIGEST §9), by target name. It is searched in order
// (one lookup per module), and laid out by the linker: no process builds
// it.
var targetSince = [...]struct {
	name         string
	major, minor uint8 // V(major, minor), as numbers the linker lays out
}{
	{"sm_10", 1, 0}, {"sm_11", 1, 0}, {"sm_12", 1, 2}, {"sm_13", 1, 2},
	{"sm_20", 2, 0}, {"sm_21", 2, 1}, {"sm_30", 3, 0}, {"sm_32", 4, 0},
	{"sm_35", 3, 1}, {"sm_37", 4, 1}, {"sm_50", 4, 0}, {"sm_52", 4, 1},
	{"sm_53", 4, 2}, {"sm_60", 5, 0}, {"sm_61", 5, 0}, {"sm_62", 5, 0},
	{"sm_70", 6, 0}, {"sm_72", 6, 1}, {"sm_75", 6, 3}, {"sm_80", 7, 0},
	{"sm_86", 7, 1}, {"sm_87", 7, 4}, {"sm_89", 7, 8}, {"sm_90", 7, 8},
	{"sm_90a", 8, 0}, {"sm_100", 8, 6}, {"sm_100a", 8, 6}, {"sm_101", 8, 6},
	{"sm_101a", 8, 6}, {"sm_120", 8, 7}, {"sm_120a", 8, 7}, {"sm_100f", 8, 8},
	{"sm_101f", 8, 8}, {"sm_103", 8, 8}, {"sm_103a", 8, 8}, {"sm_103f", 8, 8},
	{"sm_120f", 8, 8}, {"sm_121", 8, 8}, {"sm_121a", 8, 8}, {"sm_121f", 8, 8},
	{"sm_88", 9, 0}, {"sm_110", 9, 0}, {"sm_110a", 9, 0}, {"sm_110f", 9, 0},
}

// TargetSince returns the PTX ISA version that introduced t, and false when
// t is not a known target.
func TargetSince(t Target) (Version, bool) {
	name := t.String()
	for _, e := range targetSince {
		if e.name == name {
			return V(int(e.major), int(e.minor)), true
		}
	}
	return 0, false
}

// TargetValid reports whether a module declaring .version v may declare
// .target t, and if not, why (PTX ISA §11.1.2, Table 59). sm_101 and its
// variants were renamed sm_110 in PTX 9.0.
func TargetValid(t Target, v Version) error {
	since, ok := TargetSince(t)
	if !ok {
		return fmt.Errorf("unknown target %s", t)
	}
	if v < since {
		return fmt.Errorf("target %s requires PTX ISA %s (this file declares %s)", t, since, v)
	}
	if t.SM == 101 && v >= V(9, 0) {
		return fmt.Errorf("target %s was renamed sm_110%s in PTX ISA 9.0", t, suffixString(t.Suffix))
	}
	return nil
}

func suffixString(b byte) string {
	if b == 0 {
		return ""
	}
	return string(b)
}

// Arch is the target requirement of a feature, as the "Target ISA Notes"
// of a page state it (DIGEST §9 gating rule):
//
//   - Min: any target numbered Min or higher (plain, a or f) has it;
//   - Arch: the architecture-specific targets (sm_XYa) that have it;
//   - Family: the family-specific minimums (sm_XYf): an f- or a-target of
//     the same family numbered at least XY has it, from PTX FamilySince.
//
// The zero Arch has no requirement.
type Arch struct {
	Min         int
	Arch        []int
	Family      []int
	FamilySince Version
}

// SM returns the plain requirement "sm_XY or higher".
func SM(min int) Arch { return Arch{Min: min} }

// Allows reports whether target t, in a module of version v, has the
// feature.
func (a Arch) Allows(t Target, v Version) bool {
	if a.Min == 0 && len(a.Arch) == 0 && len(a.Family) == 0 {
		return true
	}
	if a.Min > 0 && t.SM >= a.Min {
		return true
	}
	if t.Suffix == 'a' {
		for _, sm := range a.Arch {
			if t.SM == sm {
				return true
			}
		}
	}
	if t.Suffix != 0 && v >= a.FamilySince {
		for _, sm := range a.Family {
			if family(t.SM) == family(sm) && t.SM >= sm {
				return true
			}
		}
	}
	return false
}

// String describes the requirement: "sm_90 or higher",
// "sm_100a, sm_101a, sm_110a or family sm_100f+, sm_101f+, sm_110f+ (PTX 8.8+)".
func (a Arch) String() string {
	var parts []string
	if a.Min > 0 {
		parts = append(parts, fmt.Sprintf("sm_%d or higher", a.Min))
	}
	for _, sm := range a.Arch {
		parts = append(parts, fmt.Sprintf("sm_%da", sm))
	}
	if len(a.Family) > 0 {
		var fam []string
		for _, sm := range a.Family {
			fam = append(fam, fmt.Sprintf("sm_%df+", sm))
		}
		s := "family " + strings.Join(fam, ", ")
		if a.FamilySince != 0 {
			s += " (PTX " + a.FamilySince.String() + "+)"
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return "any target"
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}

// Minimal returns a target that has the feature, for suggestions: the plain
// minimum, else the first architecture-specific target.
func (a Arch) Minimal() string {
	switch {
	case a.Min > 0:
		return fmt.Sprintf("sm_%d", a.Min)
	case len(a.Arch) > 0:
		return fmt.Sprintf("sm_%da", a.Arch[0])
	case len(a.Family) > 0:
		return fmt.Sprintf("sm_%df", a.Family[0])
	}
	return ""
}
