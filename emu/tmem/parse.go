package tmem

import (
	"strconv"
	"strings"
)

// ParseForm reads the data-movement qualifiers of a tcgen05.st (load false)
// or tcgen05.ld (load true) opcode: the shape (".16x64b"), the repeat count
// (".x4") and the packing qualifier (".unpack::16b" on tcgen05.st,
// ".pack::16b" on tcgen05.ld). Other qualifiers (".sync", ".aligned",
// ".b32") are ignored; a leading dot is optional. The .16x32bx2 split offset
// is an operand, not a qualifier: set Form.SplitOffset from it.
func ParseForm(quals []string, load bool) (Form, error) {
	var f Form
	op, packQual, wrongQual := "tcgen05.st", "unpack::16b", "pack::16b"
	if load {
		op, packQual, wrongQual = "tcgen05.ld", "pack::16b", "unpack::16b"
	}
	for _, q := range quals {
		q = strings.TrimPrefix(q, ".")
		if s, ok := ParseShape(q); ok {
			if f.Shape != 0 {
				return Form{}, errorf(RuleForm, specTable50, "%s has two shapes, .%s and .%s", op, f.Shape, s)
			}
			f.Shape = s
			continue
		}
		switch {
		case q == packQual:
			f.Packed = true
		case q == wrongQual:
			return Form{}, errorf(RuleForm, specTable50, "%s takes .%s, not .%s", op, packQual, wrongQual)
		case len(q) > 1 && q[0] == 'x':
			n, err := strconv.Atoi(q[1:])
			if err != nil {
				continue
			}
			if f.Num != 0 {
				return Form{}, errorf(RuleForm, specTable50, "%s has two .num qualifiers", op)
			}
			f.Num = n
		}
	}
	if f.Shape == 0 {
		return Form{}, errorf(RuleForm, specTable50, "%s needs a shape: .16x64b, .16x128b, .16x256b, .32x32b or .16x32bx2", op)
	}
	if f.Num == 0 {
		return Form{}, errorf(RuleForm, specTable50, "%s needs a .num qualifier: .x1, .x2, ..., .x128", op)
	}
	if err := f.Validate(); err != nil {
		return Form{}, err
	}
	return f, nil
}
