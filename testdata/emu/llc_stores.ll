; Store-family kernel compiled to PTX by LLVM's NVPTX back end:
;   llc -march=nvptx64 -mcpu=sm_80 llc_stores.ll -o llc_stores.ptx
; Every thread hashes its global index with a non-inlined function (a
; .func call with .param arguments), stores the hash through shared
; memory to a neighbour, and writes it as i8, i16, i32, <4 x i32>, i64,
; float and double to seven buffers. Threads at or past n store nothing.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@tile = internal addrspace(3) global [256 x i32] zeroinitializer, align 16

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare void @llvm.nvvm.barrier0()

define internal i32 @mix(i32 %a, i32 %b) noinline {
  %m = mul i32 %a, -1640531535
  %x = xor i32 %m, %b
  %s = lshr i32 %x, 13
  %r = xor i32 %x, %s
  ret i32 %r
}

define void @llc_stores(i32* %out32, <4 x i32>* %out4, i8* %out8, i16* %out16, i64* %out64, float* %outf, double* %outd, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %cta = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %base = mul i32 %cta, %ntid
  %gid = add i32 %base, %tid
  %h = call i32 @mix(i32 %gid, i32 %n)
  %slot = getelementptr [256 x i32], [256 x i32] addrspace(3)* @tile, i32 0, i32 %tid
  store volatile i32 %h, i32 addrspace(3)* %slot, align 4
  call void @llvm.nvvm.barrier0()
  %t1 = add i32 %tid, 1
  %nb = urem i32 %t1, %ntid
  %nslot = getelementptr [256 x i32], [256 x i32] addrspace(3)* @tile, i32 0, i32 %nb
  %hn = load volatile i32, i32 addrspace(3)* %nslot, align 4
  %inb = icmp ult i32 %gid, %n
  br i1 %inb, label %body, label %exit

body:
  %idx = zext i32 %gid to i64
  %p32 = getelementptr i32, i32* %out32, i64 %idx
  store i32 %hn, i32* %p32, align 4
  %v0 = insertelement <4 x i32> undef, i32 %h, i32 0
  %v1 = insertelement <4 x i32> %v0, i32 %hn, i32 1
  %g2 = xor i32 %h, %hn
  %v2 = insertelement <4 x i32> %v1, i32 %g2, i32 2
  %v3 = insertelement <4 x i32> %v2, i32 %gid, i32 3
  %p4 = getelementptr <4 x i32>, <4 x i32>* %out4, i64 %idx
  store <4 x i32> %v3, <4 x i32>* %p4, align 16
  %b8 = trunc i32 %h to i8
  %p8 = getelementptr i8, i8* %out8, i64 %idx
  store i8 %b8, i8* %p8, align 1
  %b16 = trunc i32 %h to i16
  %p16 = getelementptr i16, i16* %out16, i64 %idx
  store i16 %b16, i16* %p16, align 2
  %w = zext i32 %h to i64
  %w2 = mul i64 %w, 4294967311
  %p64 = getelementptr i64, i64* %out64, i64 %idx
  store i64 %w2, i64* %p64, align 8
  %f = uitofp i32 %h to float
  %pf = getelementptr float, float* %outf, i64 %idx
  store float %f, float* %pf, align 4
  %s = sub i32 %h, %hn
  %d = sitofp i32 %s to double
  %pd = getelementptr double, double* %outd, i64 %idx
  store double %d, double* %pd, align 8
  br label %exit

exit:
  ret void
}

!nvvm.annotations = !{!0}
!0 = !{void (i32*, <4 x i32>*, i8*, i16*, i64*, float*, double*, i32)* @llc_stores, !"kernel", i32 1}
