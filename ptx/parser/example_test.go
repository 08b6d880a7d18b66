package parser_test

import (
	"fmt"

	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/parser"
	"github.com/ptxkit/ptxkit/ptx/printer"
)

func ExampleParseFile() {
	src := []byte(".version 8.5\n.target sm_90a\n.entry k() {\n  @!%p st.global.L1::no_allocate.v2.u32 [%rd1+-8] , {%r1,_};\n}\n")
	m, errs := parser.ParseFile("k.ptx", src)
	fmt.Println("errors:", len(errs))
	in := m.Stmts[2].(*ast.Function).Body.Stmts[0].(*ast.Instruction)
	fmt.Println(in.Opcode, len(in.Quals), in.Quals[1].Name, in.Quals[1].Pos)
	addr := in.Operands[0].(*ast.Address)
	fmt.Println(addr.Base.(*ast.Reg).Name, addr.Offset)
	fmt.Print(printer.String(in))
	// Output:
	// errors: 0
	// st 4 .L1::no_allocate 4:17
	// %rd1 -8
	// @!%p st.global.L1::no_allocate.v2.u32 [%rd1+-8], {%r1, _};
}

func ExampleParseFile_errors() {
	src := []byte(".entry k()\n{\n\tmov.u32 %r1, ;\n\tadd.s32 %r1, %r1, 1\n\tret;\n}\n")
	m, errs := parser.ParseFile("bad.ptx", src)
	for _, d := range errs {
		fmt.Println(d)
	}
	fmt.Println(len(m.Stmts[0].(*ast.Function).Body.Stmts), "statements kept")
	// Output:
	// bad.ptx:3:15: error: expected operand, found ';' [syntax]
	// bad.ptx:4:21: error: missing ';' at end of statement [syntax]
	// 3 statements kept
}
