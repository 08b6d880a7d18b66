; Calls of device functions (direct, indirect through a prototype, varargs
; printf) and atomics of several widths.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@fmt = private unnamed_addr addrspace(1) constant [8 x i8] c"x = %d\0A\00", align 1
@fptrs = addrspace(1) global [2 x i32 (i32, float)*] [i32 (i32, float)* @scale, i32 (i32, float)* @offset], align 8

declare i32 @vprintf(i8*, i8*)

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
  %r1 = insertvalue { i32, i64 } %r0, i64 %a, 1
  ret { i32, i64 } %r1
}

define internal void @fill(<4 x float> %v, <4 x float> addrspace(1)* %p) noinline {
  store <4 x float> %v, <4 x float> addrspace(1)* %p, align 16
  ret void
}

define void @calls(i32 addrspace(1)* %out, <4 x float> addrspace(1)* %vout, i32 %sel, i64 %w) {
  %a = call i32 @scale(i32 3, float 2.0)
  %fp.p = getelementptr [2 x i32 (i32, float)*], [2 x i32 (i32, float)*] addrspace(1)* @fptrs, i32 0, i32 %sel
  %fp = load i32 (i32, float)*, i32 (i32, float)* addrspace(1)* %fp.p, align 8
  %b = call i32 %fp(i32 %a, float 1.5)
  %pr = call { i32, i64 } @pair(i64 %w)
  %p0 = extractvalue { i32, i64 } %pr, 0
  %s = add i32 %b, %p0
  store i32 %s, i32 addrspace(1)* %out, align 4
  call void @fill(<4 x float> <float 1.0, float 2.0, float 3.0, float 4.0>, <4 x float> addrspace(1)* %vout)
  %buf = alloca i32, align 4
  store i32 %s, i32* %buf, align 4
  %bufc = bitcast i32* %buf to i8*
  %fmtp = getelementptr [8 x i8], [8 x i8] addrspace(1)* @fmt, i32 0, i32 0
  %fmtg = addrspacecast i8 addrspace(1)* %fmtp to i8*
  %pc = call i32 @vprintf(i8* %fmtg, i8* %bufc)
  ret void
}

define void @atomics(i32 addrspace(1)* %p32, i64 addrspace(1)* %p64, float addrspace(1)* %pf, i32 addrspace(3)* %s32, i32 %v) {
  %a = atomicrmw add i32 addrspace(1)* %p32, i32 %v seq_cst
  %b = atomicrmw xchg i64 addrspace(1)* %p64, i64 7 monotonic
  %c = atomicrmw fadd float addrspace(1)* %pf, float 1.0 monotonic
  %d = cmpxchg i32 addrspace(1)* %p32, i32 %a, i32 %v seq_cst seq_cst
  %e = atomicrmw max i32 addrspace(3)* %s32, i32 %v monotonic
  %f = atomicrmw umin i64 addrspace(1)* %p64, i64 3 monotonic
  %g = atomicrmw and i32 addrspace(1)* %p32, i32 255 monotonic
  %d0 = extractvalue { i32, i1 } %d, 0
  %sum = add i32 %d0, %e
  %sum2 = add i32 %sum, %g
  store i32 %sum2, i32 addrspace(1)* %p32, align 4
  %bb = add i64 %b, %f
  store i64 %bb, i64 addrspace(1)* %p64, align 8
  store float %c, float addrspace(1)* %pf, align 4
  ret void
}

!nvvm.annotations = !{!0, !1, !2, !3}
!0 = !{void (i32 addrspace(1)*, <4 x float> addrspace(1)*, i32, i64)* @calls, !"kernel", i32 1}
!1 = !{void (i32 addrspace(1)*, i64 addrspace(1)*, float addrspace(1)*, i32 addrspace(3)*, i32)* @atomics, !"kernel", i32 1}
!2 = !{void (i32 addrspace(1)*, <4 x float> addrspace(1)*, i32, i64)* @calls, !"maxntidx", i32 256}
!3 = !{void (i32 addrspace(1)*, i64 addrspace(1)*, float addrspace(1)*, i32 addrspace(3)*, i32)* @atomics, !"minctasm", i32 2}
