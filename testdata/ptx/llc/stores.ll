; Stores of every width and vector shape to global, shared and local memory.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@tile = internal addrspace(3) global [64 x i32] undef, align 16
@table = addrspace(1) global [4 x i16] [i16 1, i16 -2, i16 3, i16 -4], align 8
@counter = addrspace(1) global i64 0, align 8

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.barrier0()

define void @store_widths(i8 addrspace(1)* %p8, i16 addrspace(1)* %p16, i32 addrspace(1)* %p32,
                          i64 addrspace(1)* %p64, float addrspace(1)* %pf, double addrspace(1)* %pd,
                          half addrspace(1)* %ph) {
  store i8 -7, i8 addrspace(1)* %p8, align 1
  store i16 300, i16 addrspace(1)* %p16, align 2
  store i32 70000, i32 addrspace(1)* %p32, align 4
  store i64 -5000000000, i64 addrspace(1)* %p64, align 8
  store float 0x3FB99999A0000000, float addrspace(1)* %pf, align 4
  store double 2.5, double addrspace(1)* %pd, align 8
  store half 0xH3C00, half addrspace(1)* %ph, align 2
  %q = getelementptr i32, i32 addrspace(1)* %p32, i64 -2
  store volatile i32 1, i32 addrspace(1)* %q, align 4
  ret void
}

define void @store_vectors(<2 x i32> addrspace(1)* %v2, <4 x i32> addrspace(1)* %v4, <2 x float> addrspace(1)* %f2,
                           <4 x float> addrspace(1)* %f4, <2 x double> addrspace(1)* %d2, <2 x i64> addrspace(1)* %l2,
                           <4 x i16> addrspace(1)* %s4, <4 x i8> addrspace(1)* %b4, i32 %a, i32 %b) {
  %x0 = insertelement <2 x i32> undef, i32 %a, i32 0
  %x1 = insertelement <2 x i32> %x0, i32 %b, i32 1
  store <2 x i32> %x1, <2 x i32> addrspace(1)* %v2, align 8
  %y = shufflevector <2 x i32> %x1, <2 x i32> undef, <4 x i32> <i32 0, i32 1, i32 1, i32 0>
  store <4 x i32> %y, <4 x i32> addrspace(1)* %v4, align 16
  store <2 x float> <float 1.0, float -2.0>, <2 x float> addrspace(1)* %f2, align 8
  store <4 x float> <float 1.0, float 2.0, float 3.0, float 4.0>, <4 x float> addrspace(1)* %f4, align 16
  store <2 x double> <double 1.0, double 0.5>, <2 x double> addrspace(1)* %d2, align 16
  store <2 x i64> <i64 1, i64 -1>, <2 x i64> addrspace(1)* %l2, align 16
  store <4 x i16> <i16 1, i16 2, i16 3, i16 4>, <4 x i16> addrspace(1)* %s4, align 8
  store <4 x i8> <i8 1, i8 2, i8 3, i8 4>, <4 x i8> addrspace(1)* %b4, align 4
  ret void
}

define void @store_shared_loop(i32 addrspace(1)* %out, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %slot = getelementptr [64 x i32], [64 x i32] addrspace(3)* @tile, i32 0, i32 %tid
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi i32 [ 0, %entry ], [ %acc.next, %loop ]
  %acc.next = add i32 %acc, %i
  store volatile i32 %acc.next, i32 addrspace(3)* %slot, align 4
  %i.next = add i32 %i, 1
  %done = icmp sge i32 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  call void @llvm.nvvm.barrier0()
  %other = xor i32 %tid, 1
  %oslot = getelementptr [64 x i32], [64 x i32] addrspace(3)* @tile, i32 0, i32 %other
  %v = load i32, i32 addrspace(3)* %oslot, align 4
  %dst = getelementptr i32, i32 addrspace(1)* %out, i32 %tid
  store i32 %v, i32 addrspace(1)* %dst, align 4
  %t = getelementptr [4 x i16], [4 x i16] addrspace(1)* @table, i32 0, i32 2
  store i16 9, i16 addrspace(1)* %t, align 2
  ret void
}

define void @store_local(i32 addrspace(1)* %out, i32 %k) {
  %buf = alloca [8 x i32], align 4
  %slot = getelementptr [8 x i32], [8 x i32]* %buf, i32 0, i32 %k
  store volatile i32 %k, i32* %slot, align 4
  %first = getelementptr [8 x i32], [8 x i32]* %buf, i32 0, i32 0
  %v = load volatile i32, i32* %first, align 4
  store i32 %v, i32 addrspace(1)* %out, align 4
  ret void
}

!nvvm.annotations = !{!0, !1, !2, !3}
!0 = !{void (i8 addrspace(1)*, i16 addrspace(1)*, i32 addrspace(1)*, i64 addrspace(1)*, float addrspace(1)*, double addrspace(1)*, half addrspace(1)*)* @store_widths, !"kernel", i32 1}
!1 = !{void (<2 x i32> addrspace(1)*, <4 x i32> addrspace(1)*, <2 x float> addrspace(1)*, <4 x float> addrspace(1)*, <2 x double> addrspace(1)*, <2 x i64> addrspace(1)*, <4 x i16> addrspace(1)*, <4 x i8> addrspace(1)*, i32, i32)* @store_vectors, !"kernel", i32 1}
!2 = !{void (i32 addrspace(1)*, i32)* @store_shared_loop, !"kernel", i32 1}
!3 = !{void (i32 addrspace(1)*, i32)* @store_local, !"kernel", i32 1}
