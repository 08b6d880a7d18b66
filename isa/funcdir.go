package isa

// FuncDirective describes a directive written between a function's header
// and its body: the performance-tuning directives (PTX ISA §11.4), the
// cluster dimension directives (§11.5) and the ABI directives. Only the
// facts the validator checks are recorded.
type FuncDirective struct {
	Name string
	// PTX is the PTX ISA version that introduced the directive, where it
	// is newer than the directives ptxas 12.5 knows (zero: not gated).
	PTX Version
	// Positive: ptxas 12.5 requires every value to be positive ("Positive
	// non-zero value expected"); it accepts 0 for .reqnctapercluster and
	// .maxclusterrank.
	Positive bool
	Section  string
}

// funcDirectives are every directive that may stand between a function's
// header and its body: the front end reads them from here.
var funcDirectives = []FuncDirective{
	{Name: ".maxnreg", Positive: true, Section: "11.4.1"},
	{Name: ".maxntid", Positive: true, Section: "11.4.2"},
	{Name: ".reqntid", Positive: true, Section: "11.4.3"},
	{Name: ".minnctapersm", Positive: true, Section: "11.4.4"},
	{Name: ".maxnctapersm", Section: "11.4.5"},
	{Name: ".noreturn", Section: "11.4.6"},
	{Name: ".pragma", Section: "11.4.7"},
	{Name: ".reqnctapercluster", Section: "11.5.1"},
	{Name: ".explicitcluster", Section: "11.5.2"},
	{Name: ".maxclusterrank", Section: "11.5.3"},
	{Name: ".blocksareclusters", Section: "11.5"},
	{Name: ".abi_preserve", PTX: V(9, 0), Section: "11.4"},
	{Name: ".abi_preserve_control", PTX: V(9, 0), Section: "11.4"},
}

// LookupFuncDirective returns the description of a function directive, or
// nil when name is none.
func LookupFuncDirective(name string) *FuncDirective {
	for i := range funcDirectives {
		if funcDirectives[i].Name == name {
			return &funcDirectives[i]
		}
	}
	return nil
}

// IsModuleDirective reports whether name is a directive of module scope
// other than the header ones (.version, .target, .address_size, read in
// that order) and the declarations: ptxas 12.5 stops on any other there
// ("Parsing error near '.maxntid'").
func IsModuleDirective(name string) bool {
	switch name {
	case ".file", ".section", ".alias", ".pragma":
		return true
	}
	return false
}

// IsBodyDirective reports whether name is a directive a function body may
// hold besides its declarations (PTX ISA §11: .pragma, .loc and the
// control-flow target lists); ptxas 12.5 stops on any other there.
func IsBodyDirective(name string) bool {
	switch name {
	case ".pragma", ".loc", ".branchtargets", ".calltargets", ".callprototype":
		return true
	}
	return false
}

// systemCall reports the functions ptxas provides itself (PTX ISA §7.3,
// System calls): a module declares them .extern and never defines them.
// cudaGraphSetConditional (CUDA 12.3, conditional graph nodes) is one
// too: ptxas 12.5 compiles a whole-program module that calls it.
func systemCall(name string) bool {
	switch name {
	case "vprintf", "malloc", "free", "__assertfail", "cudaGraphSetConditional":
		return true
	}
	return false
}

// IsSystemCall reports whether name is one of the system calls.
func IsSystemCall(name string) bool { return systemCall(name) }
