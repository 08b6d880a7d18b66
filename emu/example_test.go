package emu_test

import (
	"encoding/binary"
	"fmt"

	"github.com/ptxkit/ptxkit/emu"
	"github.com/ptxkit/ptxkit/ptx/parser"
)

// Launch a kernel that stores each thread's index times ten.
func ExampleLaunch() {
	src := `.version 8.5
.target sm_90
.address_size 64
.visible .entry scale(.param .u64 out) {
	.reg .b32 %r<3>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mul.lo.u32 %r2, %r1, 10;
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r2;
	ret;
}`
	m, errs := parser.ParseString("scale.ptx", src)
	if errs.HasErrors() {
		fmt.Println(errs.Err())
		return
	}
	prog, errs := emu.Decode(m, "scale")
	if errs.HasErrors() {
		fmt.Println(errs.Err())
		return
	}
	l := emu.Launch{Kernel: prog, Config: emu.Config{Block: [3]int{4, 1, 1}},
		Args: []emu.Arg{{IsBuffer: true, Size: 16}}}
	res, err := l.Run()
	if err != nil || res.Report != nil {
		fmt.Println(err, res.Report)
		return
	}
	for i := range 4 {
		fmt.Print(binary.LittleEndian.Uint32(res.Buffers[0].Data[4*i:]))
		if i < 3 {
			fmt.Print(" ")
		}
	}
	fmt.Printf("\n%d bytes stored to global memory\n", res.Stats.Stored[emu.SpaceGlobal])
	// Output:
	// 0 10 20 30
	// 16 bytes stored to global memory
}
