; Warp reduction and atomics compiled by LLVM's NVPTX back end:
;   llc -march=nvptx64 -mcpu=sm_80 llc_reduce.ll -o llc_reduce.ptx
; Each thread sums in[gid*k .. gid*k+k) in a loop, the warp reduces the
; sums with shfl.sync.bfly, lane 0 adds the warp total to *total with an
; atomic add and stores it to warps[gid/32]; every thread stores its own
; sum (as i64) and whether it is above the warp average (as i8).
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.shfl.sync.bfly.i32(i32, i32, i32, i32)

define void @llc_reduce(i32* %in, i32 %k, i64* %sums, i8* %above, i32* %warps, i32* %total) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %cta = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %base = mul i32 %cta, %ntid
  %gid = add i32 %base, %tid
  %start = mul i32 %gid, %k
  br label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %inext, %body ]
  %acc = phi i32 [ 0, %entry ], [ %accnext, %body ]
  %done = icmp sge i32 %i, %k
  br i1 %done, label %reduce, label %body

body:
  %j = add i32 %start, %i
  %jx = sext i32 %j to i64
  %p = getelementptr i32, i32* %in, i64 %jx
  %v = load i32, i32* %p, align 4
  %accnext = add i32 %acc, %v
  %inext = add i32 %i, 1
  br label %loop

reduce:
  %s1 = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %acc, i32 16, i32 31)
  %a1 = add i32 %acc, %s1
  %s2 = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %a1, i32 8, i32 31)
  %a2 = add i32 %a1, %s2
  %s3 = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %a2, i32 4, i32 31)
  %a3 = add i32 %a2, %s3
  %s4 = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %a3, i32 2, i32 31)
  %a4 = add i32 %a3, %s4
  %s5 = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %a4, i32 1, i32 31)
  %warpsum = add i32 %a4, %s5
  %gx = zext i32 %gid to i64
  %ps = getelementptr i64, i64* %sums, i64 %gx
  %acc64 = sext i32 %acc to i64
  store i64 %acc64, i64* %ps, align 8
  %scaled = shl i32 %acc, 5
  %isabove = icmp sgt i32 %scaled, %warpsum
  %b = zext i1 %isabove to i8
  %pa = getelementptr i8, i8* %above, i64 %gx
  store i8 %b, i8* %pa, align 1
  %lane = and i32 %tid, 31
  %first = icmp eq i32 %lane, 0
  br i1 %first, label %leader, label %exit

leader:
  %w = lshr i32 %gid, 5
  %wx = zext i32 %w to i64
  %pw = getelementptr i32, i32* %warps, i64 %wx
  store i32 %warpsum, i32* %pw, align 4
  %old = atomicrmw add i32* %total, i32 %warpsum monotonic
  br label %exit

exit:
  ret void
}

!nvvm.annotations = !{!0}
!0 = !{void (i32*, i32, i64*, i8*, i32*, i32*)* @llc_reduce, !"kernel", i32 1}
