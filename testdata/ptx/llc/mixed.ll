target triple = "nvptx64-nvidia-cuda"
@sm = internal addrspace(3) global [256 x float] undef, align 4
@g = addrspace(1) global [4 x i32] [i32 1, i32 2, i32 3, i32 4], align 4
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @vprintf(i8*, i8*)
define void @k(float addrspace(1)* %out, <4 x float> addrspace(1)* %v, i32 %n) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %p = getelementptr [256 x float], [256 x float] addrspace(3)* @sm, i32 0, i32 %t
  store float 1.5, float addrspace(3)* %p
  %x = load float, float addrspace(3)* %p
  %q = getelementptr float, float addrspace(1)* %out, i32 %t
  store float %x, float addrspace(1)* %q
  store <4 x float> <float 1.0, float 2.0, float 3.0, float 4.0>, <4 x float> addrspace(1)* %v
  %a = atomicrmw add i32 addrspace(1)* getelementptr ([4 x i32], [4 x i32] addrspace(1)* @g, i32 0, i32 1), i32 %n seq_cst
  %c = call i32 @vprintf(i8* null, i8* null)
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{void (float addrspace(1)*, <4 x float> addrspace(1)*, i32)* @k, !"kernel", i32 1}
