package sfu

import "math"

// lpMinimax finds the coefficients c minimizing the largest weighted error
// max_i |sum_k c_k phi[i][k] - f[i]| / w[i] over three basis functions, and
// that error: a margin ratio at most 1 means every sample's interval
// f[i] ± w[i] is met. It runs the revised simplex method on the dual
// problem, which has only four rows (c and the error), starting from
// artificial columns with a large penalty.
func lpMinimax(phi [][3]float64, f, w []float64) ([3]float64, float64) {
	n := len(f)
	const M = 1e9
	// columns: 0..n-1 u_i, n..2n-1 v_i, 2n..2n+3 artificials
	col := func(j int) ([4]float64, float64) {
		switch {
		case j < n:
			return [4]float64{phi[j][0], phi[j][1], phi[j][2], w[j]}, f[j]
		case j < 2*n:
			i := j - n
			return [4]float64{-phi[i][0], -phi[i][1], -phi[i][2], w[i]}, -f[i]
		}
		var a [4]float64
		a[j-2*n] = 1
		return a, -M
	}
	basis := [4]int{2 * n, 2*n + 1, 2*n + 2, 2*n + 3}
	var y [4]float64
	for iter := 0; iter < 5000; iter++ {
		var B [4][4]float64 // B[r][c] = a_{basis[c]}[r]
		var cB [4]float64
		for c, j := range basis {
			a, cj := col(j)
			for r := 0; r < 4; r++ {
				B[r][c] = a[r]
			}
			cB[c] = cj
		}
		// y solves B^T y = cB
		var BT [4][4]float64
		for r := 0; r < 4; r++ {
			for c := 0; c < 4; c++ {
				BT[r][c] = B[c][r]
			}
		}
		y = lin4(BT, cB)
		// zB solves B z = (0,0,0,1)
		z := lin4(B, [4]float64{0, 0, 0, 1})
		best, bj := 1e-9, -1
		for j := 0; j < 2*n; j++ {
			a, cj := col(j)
			d := cj - (y[0]*a[0] + y[1]*a[1] + y[2]*a[2] + y[3]*a[3])
			if d > best {
				best, bj = d, j
			}
		}
		if bj < 0 {
			return [3]float64{y[0], y[1], y[2]}, y[3]
		}
		a, _ := col(bj)
		w := lin4(B, a)
		lr, ratio := -1, math.Inf(1)
		for r := 0; r < 4; r++ {
			if w[r] > 1e-12 {
				if q := z[r] / w[r]; q < ratio {
					ratio, lr = q, r
				}
			}
		}
		if lr < 0 {
			return [3]float64{y[0], y[1], y[2]}, math.Inf(1)
		}
		basis[lr] = bj
	}
	return [3]float64{y[0], y[1], y[2]}, math.Inf(1)
}

func lin4(A [4][4]float64, b [4]float64) [4]float64 {
	var m [4][5]float64
	for i := 0; i < 4; i++ {
		for j := 0; j < 4; j++ {
			m[i][j] = A[i][j]
		}
		m[i][4] = b[i]
	}
	return solve4(m)
}
func solve4(A [4][5]float64) [4]float64 {
	for i := 0; i < 4; i++ {
		p := i
		for r := i + 1; r < 4; r++ {
			if math.Abs(A[r][i]) > math.Abs(A[p][i]) {
				p = r
			}
		}
		A[i], A[p] = A[p], A[i]
		for r := 0; r < 4; r++ {
			if r != i {
				m := A[r][i] / A[i][i]
				for c := i; c < 5; c++ {
					A[r][c] -= m * A[i][c]
				}
			}
		}
	}
	var x [4]float64
	for i := range x {
		x[i] = A[i][4] / A[i][i]
	}
	return x
}
