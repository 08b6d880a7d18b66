package sass

import (
	"fmt"
	"strings"
)

// Spellings printed by nvdisasm 12.5.
var (
	maxwellCop   = [4]string{"", "CG", "CS", "WT"} // STL .cop (WB is the default) and STG/ST cache
	turingPolicy = [8]string{"EF", "", "EL", "LU", "EU", "NA", "INVALID6", "INVALID7"}
	scaleNames   = [4]string{"", "X4", "X8", "X16"}
	sizeNames    = [8]string{"U8", "S8", "U16", "S16", "", "64", "128", "INVALID7"}
	// semNames are the Turing+ STG/ST memory-semantics values [80:77].
	semNames = [16]string{
		"", "CONSTANT.PRIVATE", "CONSTANT.CTA", "CONSTANT.CTA.PRIVATE", "STRONG.SM.PRIVATE", "STRONG.SM",
		"STRONG.GPU.PRIVATE", "STRONG.GPU", "MMIO.GPU", "CONSTANT.SM", "STRONG.SYS", "CONSTANT.SM.PRIVATE",
		"MMIO.SYS", "CONSTANT.VC", "CONSTANT.VC.PRIVATE", "CONSTANT.GPU",
	}
	// stasSemNames are STAS's values of the same bits, printed with names
	// nvdisasm 12.5 does not know.
	stasSemNames = [16]string{
		"", "???0.PRIVATE", "???0.???1", "???0.???1.PRIVATE", "???2.PRIVATE", "???2.???1", "???3.PRIVATE", "???2.???3",
		"???3.???4", "???0.???2", "???2.SYS", "???0.???2.PRIVATE", "???3.SYS", "???0.???3", "???0.???3.PRIVATE", "???0.???4",
	}
)

// String returns the instruction as nvdisasm prints it for a Turing+ word
// (see Text for the architecture-specific form).
func (in Inst) String() string { return in.Text(Arch{90}) }

// Text returns the instruction as nvdisasm prints it for arch, without the
// trailing ";": "@!P0 STL.CG.U8 [R1+0x20], R8".
func (in Inst) Text(arch Arch) string {
	var b strings.Builder
	in.appendText(&b, arch)
	return b.String()
}

// Format returns Text followed by the scheduling annotations that differ
// from DefaultSched, in nvdisasm's newer notation (&req={0,3} &rd=0x1
// ?WAIT2_END_GROUP): the seed's {&req_6} {&rdN} {?sched}. A descriptor
// register that nvdisasm hides (SM80-SM89) is shown as &desc=URn when it is
// not DefaultDesc, the register the parser assumes, and always on STL,
// whose hidden desc[] form prints as the plain one, so that the result
// parses back to the same instruction.
func (in Inst) Format(arch Arch) string {
	var b strings.Builder
	in.appendText(&b, arch)
	if in.Desc && !in.DescShown && arch.SM < 90 && (in.URc != DefaultDesc || in.Op == STL) {
		fmt.Fprintf(&b, " &desc=%s", uregName(in.URc))
	}
	in.Sched.appendAnnot(&b)
	return b.String()
}

func (in *Inst) appendText(b *strings.Builder, arch Arch) {
	if in.Op == NOP {
		b.WriteString("NOP")
		return
	}
	if in.Pred != PT || in.PredNeg {
		b.WriteByte('@')
		if in.PredNeg {
			b.WriteByte('!')
		}
		b.WriteString(predName(in.Pred))
		b.WriteByte(' ')
	}
	b.WriteString(in.Op.String())
	for _, m := range in.mods(arch) {
		if m != "" {
			b.WriteByte('.')
			b.WriteString(m)
		}
	}
	b.WriteByte(' ')
	in.appendAddr(b, arch)
	b.WriteString(", ")
	b.WriteString(regName(in.Rb))
	if in.Op == ST && arch.Gen() == Maxwell && in.PredC != PT {
		b.WriteString(", ")
		b.WriteString(predName(in.PredC))
	}
	if in.PM != 0 {
		fmt.Fprintf(b, " ?PM%d", in.PM)
	}
}

// mods returns the modifiers in nvdisasm's order.
func (in *Inst) mods(arch Arch) []string {
	size := sizeNames[in.Size&7]
	if arch.Gen() == Maxwell {
		if in.Size == Size7 {
			size = "INVALIDSIZE7"
		}
		switch in.Op {
		case STL:
			return []string{maxwellCop[in.Cop&3], size}
		case STG, ST:
			return []string{eName(in.E), maxwellCop[in.Cop&3], size}
		}
		return []string{size}
	}
	switch in.Op {
	case STL:
		return []string{turingPolicy[in.Policy&7], size}
	case STG, ST:
		e := eName(in.E)
		if !in.E && in.UR && in.wideRa(arch) {
			e = "???0" // a 64-bit address without .E has no name in nvdisasm's table
		}
		return []string{e, turingPolicy[in.Policy&7], size, semNames[in.Sem&15]}
	case STAS:
		if in.Size < Size32 {
			size = fmt.Sprintf("INVALID%d", in.Size)
		}
		return []string{size, stasSemNames[in.Sem&15]}
	}
	return []string{size}
}

func eName(e bool) string {
	if e {
		return "E"
	}
	return ""
}

func (in *Inst) appendAddr(b *strings.Builder, arch Arch) {
	if in.Desc && (arch.SM >= 90 || in.DescShown) {
		fmt.Fprintf(b, "desc[%s]", uregName(in.URc))
	}
	b.WriteByte('[')
	var terms []string
	switch {
	case in.Op == STAS:
		terms = append(terms, wideRegName(in.Ra, in.Ra64))
		if in.URc != URZ || !in.Ra64 {
			terms = append(terms, uregName(in.URc))
		}
	case in.UR && !in.Desc && (in.Op == STG || in.Op == ST):
		if in.Ra != RZ || arch.SM >= 90 {
			terms = append(terms, wideRegName(in.Ra, in.Ra64))
		}
		terms = append(terms, uregName(in.URc))
	case in.Desc && in.Op == STL:
		terms = append(terms, regName(in.Ra))
	case in.Desc:
		terms = append(terms, regName(in.Ra)+".64")
	case in.Ra != RZ || in.UR && in.Scale != 0:
		r := regName(in.Ra)
		if in.Scale != 0 {
			r += "." + scaleNames[in.Scale&3]
		}
		terms = append(terms, r)
		if in.UR {
			terms = append(terms, uregName(in.URc))
		}
	case in.UR:
		terms = append(terms, uregName(in.URc))
	}
	b.WriteString(strings.Join(terms, "+"))
	switch {
	case len(terms) == 0 && in.Off == 0:
		b.WriteString("RZ")
	case len(terms) == 0:
		fmt.Fprintf(b, "0x%x", in.Off)
	case in.Off < 0:
		fmt.Fprintf(b, "+-0x%x", -in.Off)
	case in.Off > 0:
		fmt.Fprintf(b, "+0x%x", in.Off)
	}
	b.WriteByte(']')
}

// wideRa reports whether the uniform-register form of STG/ST uses a 64-bit
// Ra as nvdisasm sees it: before SM90 the width of an absent Ra (RZ without
// desc[]) is ignored.
func (in *Inst) wideRa(arch Arch) bool {
	return in.Ra64 && (in.Ra != RZ || in.Desc || arch.SM >= 90)
}

// wideRegName prints Ra.64 or Ra.U32; nvdisasm prints RZ.64 outside desc[]
// as "???255.64".
func wideRegName(r uint8, r64 bool) string {
	if !r64 {
		return regName(r) + ".U32"
	}
	if r == RZ {
		return "???255.64"
	}
	return regName(r) + ".64"
}

func regName(r uint8) string {
	if r == RZ {
		return "RZ"
	}
	return fmt.Sprintf("R%d", r)
}

func uregName(r uint8) string {
	if r == URZ {
		return "URZ"
	}
	return fmt.Sprintf("UR%d", r)
}

func predName(p uint8) string {
	if p == PT {
		return "PT"
	}
	return fmt.Sprintf("P%d", p)
}

// appendAnnot writes the non-default scheduling controls.
func (s Sched) appendAnnot(b *strings.Builder) {
	if s == DefaultSched {
		return
	}
	if s.Req != 0 {
		b.WriteString(" &req={")
		first := true
		for i := 0; i < 6; i++ {
			if s.Req&(1<<i) != 0 {
				if !first {
					b.WriteByte(',')
				}
				fmt.Fprintf(b, "%d", i)
				first = false
			}
		}
		b.WriteByte('}')
	}
	if s.Rd != 7 {
		fmt.Fprintf(b, " &rd=0x%x", s.Rd)
	}
	if s.Wr != 7 {
		fmt.Fprintf(b, " &wr=0x%x", s.Wr)
	}
	if s.Reuse != 0 {
		fmt.Fprintf(b, " &reuse=0x%x", s.Reuse)
	}
	if s.Stall != DefaultSched.Stall || s.Yield != DefaultSched.Yield {
		if s.Yield == 0 {
			fmt.Fprintf(b, " ?WAIT%d_END_GROUP", s.Stall)
		} else {
			fmt.Fprintf(b, " ?trans%d", s.Stall)
		}
	}
}
