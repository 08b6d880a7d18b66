package parser

import "github.com/ptxkit/ptxkit/isa"

// The ISA's spellings (state spaces, vector lengths, types, function
// directives) come from package isa, which lists each once; the words of
// a declaration are classified by isa.DeclWord.

// isStateSpace reports whether s names a state space that can begin a
// variable declaration (PTX ISA §5.1), including the "::" sub-spaces.
func isStateSpace(s string) bool { return isa.IsStateSpace(s) }

// isPerfDirective reports whether s is a performance-tuning or function
// attribute directive written between a function header and its body
// (PTX ISA §11.4, §11.5).
func isPerfDirective(s string) bool { return isa.LookupFuncDirective(s) != nil }

// The lists below are the grammar's own. The module-level directives
// decide the shape of the parse (where a function or a declaration
// begins, where an unclosed body must have ended); they belong to the
// structure of a module (PTX ISA §11.1, §11.6) and qualify no
// instruction. The vector component selectors are expression syntax.

// isLinkage reports whether s is a linkage directive (PTX ISA §11.6).
func isLinkage(s string) bool {
	switch s {
	case ".extern", ".visible", ".weak", ".common":
		return true
	}
	return false
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

// isComponent reports whether s (without its dot) selects a vector
// component: x y z w or r g b a.
func isComponent(s string) bool {
	switch s {
	case "x", "y", "z", "w", "r", "g", "b", "a":
		return true
	}
	return false
}
