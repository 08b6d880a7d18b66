package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/parser"
	"github.com/ptxkit/ptxkit/sass"
)

func init() {
	registerExplainSection(explainSection{"SASS (ptxas)", 65, renderSASSLowering})
}

// renderSASSLowering shows, for a PTX st, the SASS ptxas emits: for the
// --target when one is given, otherwise for sm_50, sm_70, sm_80 and sm_90
// (ENCODING.md table T4).
func renderSASSLowering(x *explanation) []string {
	in := x.Instr
	if in == nil || in.Opcode != "st" || x.Form.Instr == nil { // st.bulk is not a store of registers
		return nil
	}
	targets := []string{"sm_50", "sm_70", "sm_80", "sm_90"}
	if x.Target.SM != 0 {
		targets = []string{fmt.Sprintf("sm_%d", x.Target.SM)}
	}
	var lines []string
	for _, t := range targets {
		out, err := sass.LowerStore(in, t)
		var le *sass.LowerError
		if errors.As(err, &le) && le.Uncovered {
			lines = append(lines, fmt.Sprintf("%s: unknown (%v)", t, err))
			continue
		}
		if err != nil {
			lines = append(lines, fmt.Sprintf("%s: not compiled (%v)", t, err))
			continue
		}
		lines = append(lines, fmt.Sprintf("%s: %s", t, strings.Join(out, "; ")))
	}
	return lines
}

// lowerFile prints, for each PTX st instruction of name, its position, its
// opcode and the SASS ptxas emits for it ("; "-separated):
//
//	k.ptx:12:2	st.global.cg.u32	STG.E.STRONG.GPU
func lowerFile(name, arch string, stdin io.Reader, stdout, stderr io.Writer) int {
	src, err := readSassInput(name, stdin)
	if err != nil {
		fmt.Fprintf(stderr, "ptxkit sass lower: %v\n", err)
		return exitUsage
	}
	m, errs := parser.ParseFile(displayName(name), src)
	if errs.HasErrors() {
		diag.WriteText(stderr, errs)
		return exitFail
	}
	status := exitOK
	var archErr error
	ast.Inspect(m, func(n ast.Node) bool {
		in, ok := n.(*ast.Instruction)
		if !ok || in.Opcode != "st" || archErr != nil {
			return archErr == nil
		}
		pos := fmt.Sprintf("%s:%d:%d", displayName(name), in.Pos().Line, in.Pos().Col)
		out, err := sass.LowerStore(in, arch)
		var le *sass.LowerError
		switch {
		case errors.As(err, &le):
			kind := "error" // ptxas rejects it
			if le.Uncovered {
				kind = "unknown"
			}
			fmt.Fprintf(stderr, "%s: %s: %s: %s\n", pos, kind, in.FullOpcode(), le.Msg)
			status = exitFail
		case err != nil:
			archErr = err
		default:
			fmt.Fprintf(stdout, "%s\t%s\t%s\n", pos, in.FullOpcode(), strings.Join(out, "; "))
		}
		return false
	})
	if archErr != nil {
		fmt.Fprintf(stderr, "ptxkit sass lower: %v\n", archErr)
		return exitUsage
	}
	return status
}
