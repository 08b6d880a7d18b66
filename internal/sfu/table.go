package sfu

// quadTable is one function's piecewise-quadratic interpolation table, in
// the form of the SFU's datapath (Oberman and Siu, ARITH 2005): the leading
// bits of an n-bit fixed-point argument select a segment, the remaining
// bits are an integer x, and the result is
//
//	(c0 + c1*x + c2*square(x)) >> shift
//
// in the units of the function's output, where square is the datapath's
// truncated squarer and c0 includes the rounding constant. The integer
// coefficients are derived from the hardware's dense sweeps by gen_test.go
// (docs/sfu.md).
type quadTable struct {
	bits    uint       // segment index bits
	sqShift uint       // x is shifted left by this before squaring
	shift   uint       // fraction bits of the sum below the output's unit
	coef    [][3]int64 // per segment: c0, c1, c2
}

// eval interpolates at the n-bit fraction u.
func (q *quadTable) eval(u uint32, n uint) int64 {
	seg, x := q.split(u, n)
	c := &q.coef[seg]
	return (c[0] + c[1]*int64(x) + c[2]*int64(square(x<<q.sqShift))) >> q.shift
}

// split returns u's segment and its offset x inside the segment.
func (q *quadTable) split(u uint32, n uint) (int, uint32) {
	low := n - q.bits
	return int(u >> low), u & (1<<low - 1)
}

// square is the SFU's truncated squarer of a 17-bit y: the partial product
// row of each set bit i, y*2^i, keeps only its bits above 2^18, and the sum
// drops one more bit, so square(y) is y^2/2^19 less the dropped columns.
func square(y uint32) uint32 {
	var s uint32
	for i := uint(0); i < 17; i++ {
		if y>>i&1 != 0 {
			s += y >> (18 - i)
		}
	}
	return s >> 1
}
