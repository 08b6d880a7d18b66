package resolve_test

import (
	"fmt"

	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/parser"
	"github.com/ptxkit/ptxkit/ptx/resolve"
)

// Resolve a kernel and print the declaration behind each operand of its
// store.
func Example() {
	src := `.version 8.5
.target sm_90
.entry k(.param .u64 p)
{
	.reg .b64 %rd<2>;
	.shared .align 16 .b8 tile[64];
	ld.param.u64 %rd1, [p];
	st.shared.u32 [tile+4], %tid.x;
	st.global.u64 [%rd1], %rd9;
}
`
	m, errs := parser.ParseString("k.ptx", src)
	if errs.HasErrors() {
		fmt.Println(errs.Err())
		return
	}
	info, rerrs := resolve.Module(m)
	for _, d := range rerrs {
		fmt.Println(d)
	}
	ast.Inspect(m, func(n ast.Node) bool {
		in, ok := n.(*ast.Instruction)
		if !ok || in.Opcode != "st" {
			return true
		}
		for _, op := range in.Operands {
			if d := info.Decl(op); d != nil {
				fmt.Printf("%s: %s %s\n", d.Name.Name, d.Space, d.Type)
			} else if reg, ok := op.(*ast.Reg); ok {
				if s := info.Symbol(reg); s != nil {
					fmt.Printf("%s: %s %s\n", reg.Name, s.Kind, s.Type())
				}
			}
		}
		return false
	})
	// Output:
	// k.ptx:9:24: error: %rd9 is out of range: %rd<2> declares %rd0 to %rd1 [register-out-of-range]
	// tile: .shared .b8
	// %tid: special register .u32
	// %rd: .reg .b64
}
