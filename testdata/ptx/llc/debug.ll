; Debug information: .target debug, .loc, .file and DWARF .section bodies.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define internal i32 @helper(i32 %x) !dbg !10 {
  %y = mul i32 %x, 3, !dbg !13
  ret i32 %y, !dbg !13
}

define void @kern(i32 addrspace(1)* %out, i32 %v) !dbg !5 {
  %h = call i32 @helper(i32 %v), !dbg !8
  store i32 %h, i32 addrspace(1)* %out, align 4, !dbg !9
  ret void, !dbg !9
}

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3, !4}
!nvvm.annotations = !{!14}
!0 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus, file: !1, producer: "hand", isOptimized: true, runtimeVersion: 0, emissionKind: FullDebug)
!1 = !DIFile(filename: "dbg.cu", directory: "/src")
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !{i32 2, !"Dwarf Version", i32 2}
!5 = distinct !DISubprogram(name: "kern", scope: !1, file: !1, line: 10, type: !6, scopeLine: 10, spFlags: DISPFlagDefinition, unit: !0)
!6 = !DISubroutineType(types: !7)
!7 = !{null}
!8 = !DILocation(line: 11, column: 7, scope: !5)
!9 = !DILocation(line: 12, column: 3, scope: !5)
!10 = distinct !DISubprogram(name: "helper", scope: !1, file: !1, line: 3, type: !6, scopeLine: 3, spFlags: DISPFlagDefinition, unit: !0)
!13 = !DILocation(line: 4, column: 5, scope: !10)
!14 = !{void (i32 addrspace(1)*, i32)* @kern, !"kernel", i32 1}
