package tmem

import "github.com/ptxkit/ptxkit/isa"

// FormOf returns the data-movement form of a tcgen05.st or tcgen05.ld that
// isa decoded (PTX ISA §9.7.16.8.3, §9.7.16.8.4, Table 50): its qualifiers
// in source order. It reads the shape (.16x64b ...), the .num repeat factor
// (.x1 ... .x128) and the packing qualifier: .unpack::16b on tcgen05.st,
// .pack::16b on tcgen05.ld. The .16x32bx2 split offset is an operand, not
// a qualifier: set Form.SplitOffset from it.
func FormOf(quals []isa.Qual, load bool) (Form, error) {
	op, pack, wrong := "tcgen05.st", isa.QUnpack16b, isa.QPack_16b
	if load {
		op, pack, wrong = "tcgen05.ld", isa.QPack_16b, isa.QUnpack16b
	}
	var f Form
	for _, q := range quals {
		switch {
		case q.Group() == isa.GShape:
			s, ok := shapeOf(q)
			if !ok {
				return Form{}, errorf(RuleForm, specTable50, "%s has no shape %s", op, q)
			}
			if f.Shape != 0 {
				return Form{}, errorf(RuleForm, specTable50, "%s has two shapes, .%s and .%s", op, f.Shape, s)
			}
			f.Shape = s
		case q.Group() == isa.GNum:
			if f.Num != 0 {
				return Form{}, errorf(RuleForm, specTable50, "%s has two .num qualifiers", op)
			}
			f.Num = q.Bits() // .xN's value
		case q == pack:
			f.Packed = true
		case q == wrong:
			return Form{}, errorf(RuleForm, specTable50, "%s takes %s, not %s", op, pack, wrong)
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

// shapeOf maps isa's shape qualifier to a Shape.
func shapeOf(q isa.Qual) (Shape, bool) {
	switch q {
	case isa.Q16x64b:
		return Shape16x64b, true
	case isa.Q16x128b:
		return Shape16x128b, true
	case isa.Q16x256b:
		return Shape16x256b, true
	case isa.Q32x32b:
		return Shape32x32b, true
	case isa.Q16x32bx2:
		return Shape16x32bx2, true
	}
	return 0, false
}
