package lsp

// opcodes are the PTX instruction names, the text before the first dot
// (PTX ISA §9.7 "Instructions"), sorted.
var opcodes = []string{
	"abs", "activemask", "add", "addc", "alloca", "and", "applypriority", "atom",
	"bar", "barrier", "bfe", "bfi", "bfind", "bmsk", "bra", "brev", "brkpt", "brx",
	"call", "clz", "cnot", "copysign", "cos", "cp", "createpolicy", "cvt", "cvta",
	"discard", "div", "dp2a", "dp4a", "elect", "ex2", "exit", "fence", "fma", "fns",
	"getctarank", "griddepcontrol", "isspacep", "istypep", "ld", "ldmatrix", "ldu", "lg2", "lop3",
	"mad", "mad24", "madc", "mapa", "match", "max", "mbarrier", "membar", "min", "mma",
	"mov", "movmatrix", "mul", "mul24", "multimem", "nanosleep", "neg", "not", "or",
	"pmevent", "popc", "prefetch", "prefetchu", "prmt", "rcp", "red", "redux", "rem", "ret",
	"rsqrt", "sad", "selp", "set", "setmaxnreg", "setp", "shf", "shfl", "shl", "shr",
	"sin", "slct", "sqrt", "st", "stackrestore", "stacksave", "stmatrix", "sub", "subc",
	"suld", "suq", "sured", "sust", "szext", "tanh", "tcgen05", "tensormap", "testp",
	"tex", "tld4", "trap", "txq", "vote", "wgmma", "wmma", "xor",
}
