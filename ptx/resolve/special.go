package resolve

import (
	"sync"

	"github.com/ptxkit/ptxkit/isa"
)

// Special is a predefined, read-only special register (PTX ISA §10
// "Special Registers"), as the resolver binds it. Its description is
// isa's (isa.SReg); the string fields restate it in PTX spelling.
type Special struct {
	*isa.SReg
	Type   string // type of the register or of each component: ".u32", ".u64", ".b32", ".pred"
	PTX    string // first PTX ISA version that defines it
	Target string // first target that supports it ("sm_20" for the oldest ones)

	sym *Symbol // the Symbol shared by all uses
}

// specials binds every special register of isa's table, in its order; it
// is built by the first lookup of a special register, not at the start
// of every command.
var specials = sync.OnceValue(func() []*Special {
	l := make([]*Special, len(isa.SRegs()))
	for i, r := range isa.SRegs() {
		sp := &Special{SReg: r, Type: r.Type.String(), PTX: r.PTX.String(), Target: r.Arch.Minimal()}
		sp.sym = &Symbol{Kind: SpecialReg, Special: sp}
		l[i] = sp
	}
	return l
})

// LookupSpecial returns the special register called name ("%tid",
// "%cluster_ctarank", "%envreg3"), or nil when name is not one.
func LookupSpecial(name string) *Special {
	if i := isa.SRegNumber(name); i >= 0 {
		return specials()[i]
	}
	return nil
}

// ValidComponent reports whether comp may follow the special register s:
// any of x y z w (or r g b a) for the vector registers, as ptxas accepts
// (%tid.w reads 0), nothing for scalar ones (ptxas: "Unknown field").
func (s *Special) ValidComponent(comp string) bool {
	if !s.Vector {
		return false
	}
	switch comp {
	case "x", "y", "z", "w", "r", "g", "b", "a":
		return true
	}
	return false
}
