package mm

import "fmt"

func parseAsync(prog *Program, parts, args []string) (Instr, error) {
	return Instr{}, fmt.Errorf("unknown instruction %q", parts[0])
}

func (b *pathBuilder) asyncStep(p *path, pc int, in *Instr, base Event, ctrl *uint64) bool {
	b.err = fmt.Errorf("unsupported instruction")
	return false
}
