package parser

import "strings"

// isLinkage reports whether s is a linkage directive (PTX ISA §11.6).
func isLinkage(s string) bool {
	switch s {
	case ".extern", ".visible", ".weak", ".common":
		return true
	}
	return false
}

// isStateSpace reports whether s names a state space that can begin a
// variable declaration (PTX ISA §5.1), including the "::" sub-spaces.
func isStateSpace(s string) bool {
	base := s
	if i := strings.Index(s, "::"); i >= 0 {
		base = s[:i]
	}
	switch base {
	case ".reg", ".sreg", ".const", ".global", ".local", ".param", ".shared", ".tex":
		return true
	}
	return false
}

// isType reports whether s is a fundamental or opaque type name usable in a
// declaration (PTX ISA §5.2).
func isType(s string) bool {
	switch s {
	case ".s8", ".s16", ".s32", ".s64", ".u8", ".u16", ".u32", ".u64",
		".b8", ".b16", ".b32", ".b64", ".b128",
		".f16", ".f16x2", ".f32", ".f64", ".bf16", ".bf16x2", ".tf32",
		".e4m3", ".e5m2", ".e4m3x2", ".e5m2x2", ".e2m1", ".e2m1x2", ".e3m2", ".e2m3",
		".pred", ".texref", ".samplerref", ".surfref":
		return true
	}
	return false
}

// vectorWidth returns 2, 4 or 8 for ".v2", ".v4", ".v8", else 0.
func vectorWidth(s string) int {
	switch s {
	case ".v2":
		return 2
	case ".v4":
		return 4
	case ".v8":
		return 8
	}
	return 0
}

// topLevelOnly reports whether a directive may appear only at module scope;
// meeting one inside a function body means the body was not closed.
func topLevelOnly(s string) bool {
	switch s {
	case ".entry", ".func", ".version", ".target", ".address_size", ".visible", ".extern", ".weak", ".common", ".file", ".section":
		return true
	}
	return false
}

// startsFunction reports whether a module-scope directive begins a
// function or variable declaration (so that meeting it inside a body means
// the body was not closed), rather than being a module-scope statement of
// its own (.file, .version, .section, ...).
func startsFunction(s string) bool {
	switch s {
	case ".entry", ".func", ".visible", ".extern", ".weak", ".common":
		return true
	}
	return false
}

// isPerfDirective reports whether s is a performance-tuning or function
// attribute directive written between a function header and its body
// (PTX ISA §11.4, §11.5).
func isPerfDirective(s string) bool {
	switch s {
	case ".maxntid", ".reqntid", ".minnctapersm", ".maxnctapersm", ".maxnreg", ".noreturn",
		".explicitcluster", ".reqnctapercluster", ".maxclusterrank", ".blocksareclusters", ".pragma", ".abi_preserve", ".abi_preserve_control":
		return true
	}
	return false
}

// isComponent reports whether s (without its dot) selects a vector
// component: x y z w or r g b a.
func isComponent(s string) bool {
	switch s {
	case "x", "y", "z", "w", "r", "g", "b", "a":
		return true
	}
	return false
}
