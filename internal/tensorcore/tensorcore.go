// Package tensorcore computes the floating-point arithmetic of NVIDIA's
// tensor cores bit for bit, per architecture: the matrix multiply-accumulate
// D = A×B + C of mma, wmma, wgmma and tcgen05.mma on f16, bf16, tf32, fp8
// (e4m3, e5m2) and f64 inputs. It owns the numerical model only (formats,
// products, alignment, truncation, block summation, final rounding); the
// emulator owns fragments, registers and shared memory and hands whole
// matrices to MMA.
//
// The model is the one published by Xie et al. (MMA-Sim, arXiv 2511.10909)
// and by Khattak and Mikaitis ("Accurate models of NVIDIA tensor cores",
// arXiv 2512.07004), who validated it against V100 to B200 hardware: each
// product a·b is exact; the products of one block of k and the accumulator
// are aligned to the largest exponent among them and truncated toward zero
// to F fraction bits below it; the aligned terms are summed exactly
// without intermediate normalisation; the block's sum becomes the next
// block's accumulator, rounded toward zero to binary32; the last block
// rounds toward zero for binary32 outputs and to nearest-even for binary16
// outputs. Arch holds F and the block sizes of each architecture;
// docs/tensorcore.md lists them and what is and is not verified.
package tensorcore

import "fmt"

// Format is an element format of a matrix.
type Format uint8

const (
	F16 Format = iota + 1
	BF16
	TF32 // 19 significant bits stored in a 32-bit word (low 13 bits ignored)
	F32
	F64
	E4M3
	E5M2
)

func (f Format) String() string {
	switch f {
	case F16:
		return "f16"
	case BF16:
		return "bf16"
	case TF32:
		return "tf32"
	case F32:
		return "f32"
	case F64:
		return "f64"
	case E4M3:
		return "e4m3"
	case E5M2:
		return "e5m2"
	}
	return fmt.Sprintf("Format(%d)", uint8(f))
}

// Bits is the width of an element in a register.
func (f Format) Bits() int {
	switch f {
	case F16, BF16:
		return 16
	case E4M3, E5M2:
		return 8
	case F64:
		return 64
	}
	return 32
}

// Arch is the tensor-core arithmetic of one architecture.
type Arch struct {
	Name string
	SM   int // the first sm_XX of the architecture
	// Frac is F: the fraction bits kept below the largest exponent of a
	// block when the products and the accumulator are aligned.
	Frac int
	// Block is the number of products summed with the accumulator in one
	// step, per input format (k is evaluated in consecutive blocks).
	Block map[Format]int
	// FP8Frac and FP8Block are F and the block size of FP8 inputs (on
	// Ada mma and Hopper wgmma FP8 keeps only 13 fraction bits).
	FP8Frac, FP8Block int
	// FP8ViaF16 is set where PTX mma.sync on FP8 is not one tensor-core
	// operation: ptxas converts the inputs to f16 and issues two f16
	// MMAs over interleaved halves of k whose results are added to the
	// accumulator separately (sm_90).
	FP8ViaF16 bool
}

// The architectures. The parameters follow the published models (see the
// package comment and docs/tensorcore.md).
var (
	Volta = &Arch{Name: "volta", SM: 70, Frac: 23, Block: map[Format]int{F16: 4},
		FP8Frac: 23, FP8Block: 4}
	Turing = &Arch{Name: "turing", SM: 75, Frac: 24, Block: map[Format]int{F16: 4},
		FP8Frac: 24, FP8Block: 4}
	Ampere = &Arch{Name: "ampere", SM: 80, Frac: 24, Block: map[Format]int{F16: 8, BF16: 8, TF32: 4},
		FP8Frac: 24, FP8Block: 8}
	Ada = &Arch{Name: "ada", SM: 89, Frac: 24, Block: map[Format]int{F16: 8, BF16: 8, TF32: 4},
		FP8Frac: 13, FP8Block: 16}
	Hopper = &Arch{Name: "hopper", SM: 90, Frac: 25, Block: map[Format]int{F16: 16, BF16: 16, TF32: 8},
		FP8Frac: 13, FP8Block: 32, FP8ViaF16: true}
	Blackwell = &Arch{Name: "blackwell", SM: 100, Frac: 25, Block: map[Format]int{F16: 16, BF16: 16, TF32: 8},
		FP8Frac: 25, FP8Block: 32}
)

// ForSM returns the architecture of target sm_XX (the number XX; an
// a/f suffix does not change the arithmetic).
func ForSM(sm int) *Arch {
	switch {
	case sm >= 100:
		return Blackwell
	case sm >= 90:
		return Hopper
	case sm >= 89:
		return Ada
	case sm >= 80:
		return Ampere
	case sm >= 75:
		return Turing
	}
	return Volta
}

// fracOf and blockOf are F and the block size for inputs of format in.
func (a *Arch) fracOf(in Format) int {
	if in == E4M3 || in == E5M2 {
		return a.FP8Frac
	}
	return a.Frac
}

func (a *Arch) blockOf(in Format) int {
	if in == E4M3 || in == E5M2 {
		return a.FP8Block
	}
	if b := a.Block[in]; b > 0 {
		return b
	}
	return 4
}
