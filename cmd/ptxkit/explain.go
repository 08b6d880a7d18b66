package main

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/ptxkit/ptxkit/check"
	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/isa"
	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/parser"
)

func init() {
	commands["explain"] = command{"describe one instruction: space, semantics, width, completion, requirements, problems", runExplain}
}

// explanation is what `ptxkit explain` knows about one instruction. Each
// section of the output renders part of it.
type explanation struct {
	Strict  bool             // --strict: forms ptxas accepts against the ISA pages are errors
	Text    string           // the instruction as given
	Instr   *ast.Instruction // the parsed instruction
	Form    isa.Form         // its decoded qualifiers (Form.Instr nil when not described)
	Family  *isa.FamilyGate  // the family gate when the tables have no description
	Op      isa.OpDecode     // the form of an instruction outside the store tables (Op.Form nil: unknown)
	Version isa.Version      // --ptx, or 0
	Target  isa.Target       // --target, or zero
	Diags   diag.List        // problems, positioned in Text (line 1)

	line int32 // line of the instruction in the module analyze builds
}

// explainSection renders one titled part of the output. Sections are kept
// in order; other files append theirs in init (the SASS lowering and the
// tensor-memory layout view do).
type explainSection struct {
	Title  string
	Order  int
	Render func(x *explanation) []string // nil or empty: the section is left out
}

var explainSections []explainSection

func registerExplainSection(s explainSection) {
	explainSections = append(explainSections, s)
	sort.SliceStable(explainSections, func(i, j int) bool { return explainSections[i].Order < explainSections[j].Order })
}

func init() {
	registerExplainSection(explainSection{"instruction", 10, renderInstruction})
	registerExplainSection(explainSection{"state space", 20, renderSpace})
	registerExplainSection(explainSection{"semantics", 30, renderSemantics})
	registerExplainSection(explainSection{"access", 40, renderAccess})
	registerExplainSection(explainSection{"vector", 50, renderVector})
	registerExplainSection(explainSection{"completion", 60, renderCompletion})
	registerExplainSection(explainSection{"operands", 65, renderOperands})
	registerExplainSection(explainSection{"requires", 70, renderRequires})
	registerExplainSection(explainSection{"problems", 1000, renderProblems})
}

const explainUsage = `usage: ptxkit explain 'INSTRUCTION' [--target sm_XX] [--ptx X.Y]

Describes one instruction: state space, semantics, access width,
completion, requirements, SASS and problems. Exit status: 0 valid, 1
problems, 2 usage error (a text that holds no instruction included).
example: ptxkit explain 'st.global.relaxed.gpu.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};' --target sm_80`

// runExplain implements "ptxkit explain 'INSTRUCTION' [--target sm_XX]
// [--ptx X.Y]". Exit status: 0 when the instruction is valid (for the
// given target and version), 1 when it has problems, 2 on usage errors.
func runExplain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cl := newCommandLine("explain", explainUsage)
	target := new(targetFlag)
	ptxVersion := new(versionFlag)
	cl.fs.Var(target, "target", "check the instruction for this target (`sm_XX`, e.g. sm_90a)")
	cl.fs.Var(ptxVersion, "ptx", "check the instruction for this PTX ISA version (`X.Y`, e.g. 8.5)")
	strict := cl.fs.Bool("strict", false, "report forms ptxas accepts against the ISA pages as errors, not warnings (as check --strict)")
	text, status, ok := cl.parse(args, stdout, stderr) // flags before and after the instruction
	if !ok {
		return status
	}
	if len(text) == 0 {
		cl.printUsage(stderr)
		return exitUsage
	}
	x := &explanation{Text: strings.TrimSpace(strings.Join(text, " ")), Strict: *strict}
	if *target != "" {
		x.Target, _ = isa.ParseTarget(string(*target)) // checked by Set
	}
	if *ptxVersion != "" {
		x.Version, _ = isa.ParseVersion(string(*ptxVersion))
	}
	if err := x.analyze(string(*target), string(*ptxVersion)); err != nil {
		fmt.Fprintf(stderr, "ptxkit explain: %v\n", err)
		return exitUsage
	}
	writeExplanation(stdout, x)
	if x.Diags.HasErrors() {
		return exitFail
	}
	return exitOK
}

// writeExplanation prints each section of x that has something to say,
// titled in a column (the output of ptxkit explain).
func writeExplanation(w io.Writer, x *explanation) {
	for _, s := range explainSections {
		lines := s.Render(x)
		if len(lines) == 0 {
			continue
		}
		for i, l := range lines {
			title := ""
			if i == 0 {
				title = s.Title
			}
			fmt.Fprintf(w, "%-12s %s\n", title, l)
		}
	}
}

// analyze parses the instruction inside a small module (with .version
// and .target only when given, so that nothing is gated otherwise), then
// decodes and checks it.
func (x *explanation) analyze(target, version string) error {
	text := x.Text
	if !strings.HasSuffix(text, ";") {
		text += ";"
	}
	var hdr strings.Builder
	if version != "" {
		fmt.Fprintf(&hdr, ".version %s\n", version)
	}
	if target != "" {
		fmt.Fprintf(&hdr, ".target %s\n", target)
	}
	hdr.WriteString(".address_size 64\n.visible .entry explain()\n{\n")
	x.line = int32(strings.Count(hdr.String(), "\n")) + 1
	src := hdr.String() + text + "\n}\n"
	m, errs := parser.ParseString("instruction", src)
	var in *ast.Instruction
	ast.Inspect(m, func(n ast.Node) bool {
		if i, ok := n.(*ast.Instruction); ok && in == nil {
			in = i
		}
		return in == nil
	})
	if in == nil {
		return x.notAnInstruction(errs)
	}
	for _, d := range errs {
		x.addDiag(d)
	}
	x.Instr = in
	names := make([]string, len(in.Quals))
	for i, q := range in.Quals {
		names[i] = q.Name
	}
	quals := isa.LookupQuals(names, nil)
	desc, fam := isa.SelectInstr(in.Opcode, names, quals)
	if desc != nil {
		x.Form, _ = isa.Decode(desc, names, nil, nil)
	} else {
		x.Family = fam
		isa.DecodeOp(in.Opcode, names, quals, len(in.Operands), &x.Op, nil)
	}
	if errs.HasErrors() {
		return nil
	}
	for _, d := range check.Validate(m, check.Config{Strict: x.Strict}) {
		if len(in.Operands) == 0 && d.Rule == "operand-count" {
			continue // a bare opcode ("st.global.v4.u32") explains the form only
		}
		if d.Pos.Line == x.line || d.Rule == "target-version" {
			x.addDiag(d)
		}
	}
	return nil
}

// notAnInstruction is the error for a text that holds no instruction (a
// number, a label, a directive, punctuation, nothing): it names the first
// syntax error inside the text, positioned in it, when there is one.
func (x *explanation) notAnInstruction(errs diag.List) error {
	for _, d := range errs {
		if d.Severity == diag.Error && d.Pos.Line == x.line {
			return fmt.Errorf("no instruction in %q: 1:%d: %s", x.Text, d.Pos.Col, d.Message)
		}
	}
	return fmt.Errorf("no instruction in %q (give one instruction, e.g. 'add.s32 %%r1, %%r2, %%r3;')", x.Text)
}

// addDiag keeps d with its position made relative to the instruction text.
func (x *explanation) addDiag(d diag.Diagnostic) {
	if d.Pos.Line != x.line {
		d.Pos.Line, d.Pos.Col = 0, 0
	} else {
		d.Pos.Line = 1
	}
	d.End.Line = d.Pos.Line
	x.Diags = append(x.Diags, d)
}

func renderInstruction(x *explanation) []string {
	lines := []string{x.Text}
	switch {
	case x.Form.Instr != nil:
		in := x.Form.Instr
		lines = append(lines, in.Name+": "+in.Summary+" ("+in.Section+")")
	case x.Op.Form != nil:
		f := x.Op.Form
		lines = append(lines, f.Title()+": "+f.Doc()+" ("+f.Section+"; "+f.Class()+")", "syntax: "+f.Syntax())
	case x.Family != nil:
		lines = append(lines, "not described in detail; family "+x.Family.Prefix+" ("+x.Family.Section+")")
	case x.Instr != nil:
		lines = append(lines, "no instruction "+x.Instr.Opcode+" in the PTX ISA")
	}
	return lines
}

// renderOperands lists the operands of an instruction described by a
// form, with the type each must have.
func renderOperands(x *explanation) []string {
	f := x.Op.Form
	if f == nil {
		return nil
	}
	if f.AnyOperands {
		return []string{"not described in detail (counts and types are left to ptxas)"}
	}
	if len(f.Operands) == 0 {
		return []string{"none"}
	}
	var l []string
	for _, s := range f.Operands {
		l = append(l, fmt.Sprintf("%-5s %s", s.Name, operandDesc(&x.Op, s)))
	}
	if f.Mode == isa.ModeRelaxed {
		l = append(l, "destination registers may be wider than the type (PTX ISA 9.4.1, Table 28)")
	}
	return l
}

// operandDesc says what operand s of the decoded form must be.
func operandDesc(d *isa.OpDecode, s isa.OperandSpec) string {
	t := s.Fixed
	if s.Slot >= 0 {
		t = d.SlotType(s.Slot)
	}
	typ := t.String()
	if s.Wide && t != isa.QNone {
		typ = fmt.Sprintf(".%c%d", t.Kind(), 2*t.Bits()) // mul.wide.u32: .u64
	}
	if typ == "" {
		typ = "(its type qualifier)"
	}
	opt := ""
	if s.Optional {
		opt = ", optional"
	}
	switch s.Kind {
	case isa.OpdDst:
		if s.Limit > 0 {
			return fmt.Sprintf("braced vector of %s of type %s%s", registers(int(s.Limit), "destination register"), typ, opt)
		}
		return "destination register of type " + typ + opt
	case isa.OpdSrc:
		return "register or constant of type " + typ + opt
	case isa.OpdReg:
		return "register of type " + typ + opt
	case isa.OpdImm:
		if s.Limit > 0 {
			return fmt.Sprintf("integer constant below %d%s", s.Limit, opt)
		}
		return "integer constant" + opt
	case isa.OpdPredDst:
		if s.Pair {
			return "destination predicate (p, or p|q)" + opt
		}
		return "destination predicate" + opt
	case isa.OpdPredSrc:
		return "predicate, ! negates it" + opt
	case isa.OpdMem:
		return "address [reg], [var], [reg+imm]" + opt
	case isa.OpdLabel:
		return "label" + opt
	case isa.OpdMovSrc:
		return "register, constant, {registers} or the address of a variable, of type " + typ + opt
	case isa.OpdVector:
		if s.Limit > 0 {
			return fmt.Sprintf("braced vector of %s or constants of type %s%s", registers(int(s.Limit), "register"), typ, opt)
		}
		return "braced registers of type " + typ + opt
	}
	return "any" + opt
}

// registers spells "1 register", "4 registers".
func registers(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func renderSpace(x *explanation) []string {
	f := &x.Form
	if f.Instr == nil {
		return nil
	}
	if f.Instr.Name == "tcgen05.st" {
		return []string{"tensor memory (taddr: lane in bits 31:16, column in bits 15:0); source registers in .reg"}
	}
	written := f.Written(isa.GSpace)
	switch {
	case f.Space == isa.QNone:
		return []string{"generic addressing: the address selects .global, .shared or .local at run time"}
	case written == isa.QShared:
		return []string{".shared, which means .shared::cta (the executing CTA's shared memory)"}
	case written == isa.QParam:
		return []string{".param, which means .param::func (a function's return parameter or a call argument)"}
	case f.Space == isa.QSharedCluster:
		return []string{".shared::cluster: shared memory of any CTA in the cluster (address from mapa)"}
	}
	return []string{written.String()}
}

func renderSemantics(x *explanation) []string {
	f := &x.Form
	if f.Instr == nil {
		return nil
	}
	scope := ""
	if f.Scope != isa.QNone {
		scope = " at scope " + f.Scope.String()
	}
	var l []string
	switch {
	case f.Instr.Name == "tcgen05.st":
		l = append(l, "collective: all 32 threads of the warp execute it with the same taddr (.sync.aligned)")
	case f.Instr.Name == "st.async" && f.Sem != isa.QRelease:
		l = append(l, "weak store to shared memory of a CTA in the cluster; its complete-tx on the mbarrier has .release semantics at .cluster scope")
	case f.Sem == isa.QRelease:
		l = append(l, "strong release store"+scope+": the thread's earlier memory accesses become visible to threads that acquire this location"+scope)
	case f.Sem == isa.QRelaxed:
		l = append(l, "strong relaxed store"+scope+": no ordering of other accesses, but no data race with other strong accesses in the scope")
	case f.Sem == isa.QVolatile:
		l = append(l, "volatile: behaves as .relaxed.sys, and the number and order of volatile instructions are kept")
	default:
		written := ""
		if f.At[isa.GSem] < 0 {
			written = " (.weak is the default)"
		}
		l = append(l, "weak store"+written+": no synchronization; other threads see it only after synchronization by other means")
	}
	if f.Mmio {
		l = append(l, ".mmio: a strong operation that is never merged, split or dropped")
	}
	if f.Cop != isa.QNone {
		l = append(l, "cache operator "+f.Cop.String()+": "+copMeaning[f.Cop])
	}
	if f.L1Evict != isa.QNone || f.L2Evict != isa.QNone {
		l = append(l, "eviction priority "+strings.TrimSpace(f.L1Evict.String()+" "+f.L2Evict.String())+" (a hint)")
	}
	if f.CacheHint {
		l = append(l, ".L2::cache_hint: the 64-bit cache-policy operand (from createpolicy) is a hint")
	}
	return l
}

var copMeaning = map[isa.Qual]string{
	isa.QWb: "write back at all coherent levels (the default)",
	isa.QCg: "cache globally (L2, not L1)",
	isa.QCs: "streaming, likely accessed once",
	isa.QWt: "write through to system memory",
}

func renderAccess(x *explanation) []string {
	f := &x.Form
	if f.Instr == nil || f.Type == isa.QNone {
		return nil
	}
	if f.Instr.Name == "tcgen05.st" {
		regs := isa.TMemRegs(f.Shape, f.Num)
		if regs == 0 {
			return nil
		}
		l := fmt.Sprintf("%d × 32-bit registers per thread (%d bytes; %d per warp)", regs, 4*regs, 128*regs)
		if f.Unpack {
			l += "; .unpack::16b writes each register's two halves to two adjacent columns"
		}
		return []string{l, "each warp reaches only its quarter of the lanes: warp q of a warpgroup uses lanes 32q..32q+31"}
	}
	n := f.Bytes()
	l := fmt.Sprintf("%d bytes per thread", n)
	if f.Vec > 1 {
		l = fmt.Sprintf("%d × %s = %d bytes per thread", f.Vec, f.Type, n)
	}
	return []string{l, fmt.Sprintf("the address must be %d-byte aligned (a multiple of the access size)", n)}
}

func renderVector(x *explanation) []string {
	f := &x.Form
	if f.Instr == nil {
		return nil
	}
	if f.Instr.Name == "tcgen05.st" {
		if f.Shape == isa.QNone {
			return nil
		}
		l := []string{fmt.Sprintf("shape %s repeated %s along the columns", f.Shape, f.Written(isa.GNum))}
		if f.Shape == isa.Q16x32bx2 {
			l = append(l, "two 16x32b halves: threads 0-15 at taddr, threads 16-31 at taddr+immHalfSplitoff")
		}
		return l
	}
	if f.Vec == 1 {
		return []string{"scalar"}
	}
	l := []string{fmt.Sprintf(".v%d: elements at ascending addresses, element i at address + %d·i", f.Vec, f.Type.Bytes())}
	if (f.Vec == 8 && f.Type.Bits() == 32) || (f.Vec == 4 && f.Type.Bits() == 64) {
		l = append(l, "a 256-bit store: the sink _ may stand for elements that are not written")
	}
	return l
}

func renderCompletion(x *explanation) []string {
	f := &x.Form
	if f.Instr == nil {
		return nil
	}
	switch {
	case f.Instr.Name == "tcgen05.st":
		return []string{"asynchronous: tcgen05.wait::st blocks until this thread's earlier tcgen05.st are done"}
	case f.Instr.Name == "st.async" && f.Sem == isa.QRelease:
		return []string{"asynchronous release store without a completion mechanism"}
	case f.Instr.Name == "st.async":
		n := f.Bytes()
		return []string{fmt.Sprintf("asynchronous: on completion, complete-tx of %d bytes on the mbarrier [mbar]; wait with mbarrier.try_wait after arrive.expect_tx", n)}
	}
	return []string{"synchronous: done when the instruction retires (in program order for this thread)"}
}

func renderRequires(x *explanation) []string {
	f := &x.Form
	if f.Instr == nil {
		var l []string
		if g := x.Family; g != nil {
			l = append(l, fmt.Sprintf("PTX ISA %s, %s", g.PTX, g.Arch))
		}
		if x.Op.Form != nil {
			req := isa.OpRequirements(&x.Op)
			if x.Family == nil {
				l = append(l, requirementSummary(req))
			}
			for _, ft := range req.Features {
				l = append(l, "  "+ft)
			}
		}
		return l
	}
	req := isa.Requirements(f)
	l := []string{requirementSummary(req)}
	for i := range f.Instr.Features {
		ft := &f.Instr.Features[i]
		if !ft.Uses(f) {
			continue
		}
		parts := []string{}
		if ft.PTX != 0 {
			parts = append(parts, "PTX "+ft.PTX.String())
		}
		if ft.Arch.Min > 0 || len(ft.Arch.Arch) > 0 || len(ft.Arch.Family) > 0 {
			parts = append(parts, ft.Arch.String())
		}
		if len(parts) == 0 {
			continue
		}
		l = append(l, fmt.Sprintf("  %-28s %s", ft.Name, strings.Join(parts, ", ")))
	}
	return l
}

func renderProblems(x *explanation) []string {
	if len(x.Diags) == 0 {
		if x.Version == 0 && x.Target.SM == 0 {
			return []string{"none (give --target and --ptx to check the requirements too)"}
		}
		return []string{"none"}
	}
	var l []string
	for _, d := range x.Diags {
		at := ""
		if d.Pos.IsValid() {
			at = fmt.Sprintf("col %d: ", d.Pos.Col)
		}
		l = append(l, fmt.Sprintf("%s: %s%s [%s]", d.Severity, at, d.Message, d.Rule))
		if d.Fix != "" {
			l = append(l, "  fix: "+d.Fix)
		}
	}
	return l
}

// requirementSummary is the first line of the "requires" section: the PTX
// ISA version, the lowest plain target and the architecture-specific
// ones.
func requirementSummary(req isa.Requirement) string {
	summary := "PTX ISA " + req.PTX.String()
	if req.MinSM > 0 {
		summary += fmt.Sprintf(", sm_%d or higher", req.MinSM)
	}
	for _, a := range req.Special {
		summary += ", " + a.String()
	}
	return summary
}
