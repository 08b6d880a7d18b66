package resolve

import "strconv"

// Special describes a predefined, read-only special register (PTX ISA
// §10 "Special Registers").
type Special struct {
	Name   string // "%tid"
	Type   string // type of the register or of each component: ".u32", ".u64", ".b32", ".pred"
	Vector bool   // a .v4 register read per component (.x .y .z, and .w where allowed)
	PTX    string // first PTX ISA version that defines it
	Target string // first target that supports it ("sm_20" for the oldest ones)

	sym *Symbol // the Symbol shared by all uses
}

var specials = map[string]*Special{}

func addSpecial(s Special) {
	sp := &s
	sp.sym = &Symbol{Kind: SpecialReg, Special: sp}
	specials[s.Name] = sp
}

func init() {
	vec := func(name, ptx, target string) {
		addSpecial(Special{Name: name, Type: ".u32", Vector: true, PTX: ptx, Target: target})
	}
	scalar := func(name, typ, ptx, target string) {
		addSpecial(Special{Name: name, Type: typ, PTX: ptx, Target: target})
	}
	vec("%tid", "1.0", "sm_10")  // §10.1
	vec("%ntid", "1.0", "sm_10") // §10.2
	scalar("%laneid", ".u32", "1.3", "sm_10")
	scalar("%warpid", ".u32", "1.3", "sm_10")
	scalar("%nwarpid", ".u32", "2.0", "sm_20")
	vec("%ctaid", "1.0", "sm_10")  // §10.6
	vec("%nctaid", "1.0", "sm_10") // §10.7
	scalar("%smid", ".u32", "1.3", "sm_10")
	scalar("%nsmid", ".u32", "2.0", "sm_20")
	scalar("%gridid", ".u64", "1.0", "sm_10")
	scalar("%is_explicit_cluster", ".pred", "7.8", "sm_90")
	vec("%clusterid", "7.8", "sm_90")      // §10.12
	vec("%nclusterid", "7.8", "sm_90")     // §10.13
	vec("%cluster_ctaid", "7.8", "sm_90")  // §10.14
	vec("%cluster_nctaid", "7.8", "sm_90") // §10.15
	scalar("%cluster_ctarank", ".u32", "7.8", "sm_90")
	scalar("%cluster_nctarank", ".u32", "7.8", "sm_90")
	for _, s := range []string{"eq", "le", "lt", "ge", "gt"} {
		scalar("%lanemask_"+s, ".u32", "2.0", "sm_20")
	}
	scalar("%clock", ".u32", "1.0", "sm_10")
	scalar("%clock_hi", ".u32", "5.0", "sm_20")
	scalar("%clock64", ".u64", "2.0", "sm_20")
	for i := 0; i < 8; i++ {
		n := strconv.Itoa(i)
		scalar("%pm"+n, ".u32", "1.3", "sm_10")
		scalar("%pm"+n+"_64", ".u64", "4.0", "sm_50")
	}
	for i := 0; i < 32; i++ {
		scalar("%envreg"+strconv.Itoa(i), ".b32", "2.1", "sm_20")
	}
	scalar("%globaltimer", ".u64", "3.1", "sm_30")
	scalar("%globaltimer_lo", ".u32", "3.1", "sm_30")
	scalar("%globaltimer_hi", ".u32", "3.1", "sm_30")
	scalar("%reserved_smem_offset_begin", ".b32", "7.6", "sm_80")
	scalar("%reserved_smem_offset_end", ".b32", "7.6", "sm_80")
	scalar("%reserved_smem_offset_cap", ".b32", "7.6", "sm_80")
	scalar("%reserved_smem_offset_0", ".b32", "7.6", "sm_80")
	scalar("%reserved_smem_offset_1", ".b32", "7.6", "sm_80")
	scalar("%total_smem_size", ".u32", "4.1", "sm_20")
	scalar("%aggr_smem_size", ".u32", "8.1", "sm_90")
	scalar("%dynamic_smem_size", ".u32", "4.1", "sm_20")
	scalar("%current_graph_exec", ".u64", "8.0", "sm_50")
}

// LookupSpecial returns the special register called name ("%tid",
// "%cluster_ctarank", "%envreg3"), or nil when name is not one.
func LookupSpecial(name string) *Special { return specials[name] }

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
