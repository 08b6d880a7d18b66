package isa_test

import (
	"fmt"

	"github.com/ptxkit/ptxkit/isa"
)

func ExampleDecodeString() {
	f, probs := isa.DecodeString("st.shared.relaxed.cluster.v2.b64")
	fmt.Println(f.Instr.Name, f.Space, f.Sem, f.Scope, f.Vec, f.Type, f.Bytes(), len(probs))

	v, _ := isa.ParseVersion("7.4")
	t, _ := isa.ParseTarget("sm_80")
	for _, p := range isa.Gate(&f, v, t, nil) {
		fmt.Println(p.Rule+":", p.Msg)
	}
	// Output:
	// st .shared::cta .relaxed .cluster 2 .b64 16 0
	// ptx-version: .cluster scope requires PTX ISA 7.8 (this file declares 7.4)
	// target: .cluster scope requires sm_90 or higher (target is sm_80)
}

func ExampleTMemRegs() {
	fmt.Println(isa.TMemRegs(isa.Q16x256b, 32), isa.TMemRegs(isa.Q16x256b, 64))
	// Output: 128 0
}
