; Device calls compiled by LLVM's NVPTX back end:
;   llc -march=nvptx64 -mcpu=sm_80 llc_calls.ll -o llc_calls.ptx
; A direct call, an indirect call through a table of function pointers
; (.callprototype), a call returning a struct, a call taking a vector, and
; printf (vprintf with a packed argument buffer). Each thread stores the
; combined result to out[tid] and prints one line.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@fmt = private unnamed_addr addrspace(1) constant [37 x i8] c"%s tid=%d s=%u w=%lld f=%.2f c=%c%%\0A\00", align 1
@tag = private unnamed_addr addrspace(1) constant [5 x i8] c"call\00", align 1
@fptrs = addrspace(1) global [2 x i32 (i32, float)*] [i32 (i32, float)* @scale, i32 (i32, float)* @offset], align 8

declare i32 @vprintf(i8*, i8*)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

define internal i32 @scale(i32 %x, float %f) noinline {
  %c = fptosi float %f to i32
  %r = mul i32 %x, %c
  ret i32 %r
}

define internal i32 @offset(i32 %x, float %f) noinline {
  %c = fptosi float %f to i32
  %r = add i32 %x, %c
  ret i32 %r
}

define internal { i32, i64 } @pair(i64 %a) noinline {
  %t = trunc i64 %a to i32
  %r0 = insertvalue { i32, i64 } undef, i32 %t, 0
  %a2 = mul i64 %a, 3
  %r1 = insertvalue { i32, i64 } %r0, i64 %a2, 1
  ret { i32, i64 } %r1
}

define internal void @fill(<4 x float> %v, <4 x float> addrspace(1)* %p) noinline {
  store <4 x float> %v, <4 x float> addrspace(1)* %p, align 16
  ret void
}

%args = type { i8*, i32, i32, i64, double, i32 }

define void @llc_calls(i32 addrspace(1)* %out, <4 x float> addrspace(1)* %vout, i64 %w) {
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %a = call i32 @scale(i32 %tid, float 2.0)
  %sel = and i32 %tid, 1
  %fp.p = getelementptr [2 x i32 (i32, float)*], [2 x i32 (i32, float)*] addrspace(1)* @fptrs, i32 0, i32 %sel
  %fp = load i32 (i32, float)*, i32 (i32, float)* addrspace(1)* %fp.p, align 8
  %b = call i32 %fp(i32 %a, float 5.5)
  %pr = call { i32, i64 } @pair(i64 %w)
  %p0 = extractvalue { i32, i64 } %pr, 0
  %p1 = extractvalue { i32, i64 } %pr, 1
  %s = add i32 %b, %p0
  %tx = zext i32 %tid to i64
  %po = getelementptr i32, i32 addrspace(1)* %out, i64 %tx
  store i32 %s, i32 addrspace(1)* %po, align 4
  %fl = sitofp i32 %s to float
  %v0 = insertelement <4 x float> <float 1.0, float 2.0, float 3.0, float 4.0>, float %fl, i32 3
  %pv = getelementptr <4 x float>, <4 x float> addrspace(1)* %vout, i64 %tx
  call void @fill(<4 x float> %v0, <4 x float> addrspace(1)* %pv)
  %buf = alloca %args, align 8
  %tagp = getelementptr [5 x i8], [5 x i8] addrspace(1)* @tag, i32 0, i32 0
  %tagg = addrspacecast i8 addrspace(1)* %tagp to i8*
  %f0 = getelementptr %args, %args* %buf, i32 0, i32 0
  store i8* %tagg, i8** %f0, align 8
  %f1 = getelementptr %args, %args* %buf, i32 0, i32 1
  store i32 %tid, i32* %f1, align 4
  %f2 = getelementptr %args, %args* %buf, i32 0, i32 2
  store i32 %s, i32* %f2, align 4
  %f3 = getelementptr %args, %args* %buf, i32 0, i32 3
  store i64 %p1, i64* %f3, align 8
  %d = fpext float %fl to double
  %dq = fmul double %d, 2.5e-1
  %f4 = getelementptr %args, %args* %buf, i32 0, i32 4
  store double %dq, double* %f4, align 8
  %ch = add i32 %tid, 65
  %f5 = getelementptr %args, %args* %buf, i32 0, i32 5
  store i32 %ch, i32* %f5, align 4
  %bufc = bitcast %args* %buf to i8*
  %fmtp = getelementptr [37 x i8], [37 x i8] addrspace(1)* @fmt, i32 0, i32 0
  %fmtg = addrspacecast i8 addrspace(1)* %fmtp to i8*
  %pc = call i32 @vprintf(i8* %fmtg, i8* %bufc)
  ret void
}

!nvvm.annotations = !{!0}
!0 = !{void (i32 addrspace(1)*, <4 x float> addrspace(1)*, i64)* @llc_calls, !"kernel", i32 1}
