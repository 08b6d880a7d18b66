package cudrv

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	"github.com/ptxkit/ptxkit/internal/fatbin"
)

// Linker is a cuLink* session: it collects PTX inputs (text, or the PTX
// entry of a fatbinary) and links them into one PTX module, which
// cuLinkComplete hands back as the "cubin" the program then loads.
type Linker struct {
	inputs [][]byte
	names  []string
}

// NewLinker is cuLinkCreate.
func NewLinker() *Linker { return &Linker{} }

// JIT input kinds (CUjitInputType).
const (
	InputCubin   = 0
	InputPTX     = 1
	InputFatbin  = 2
	InputObject  = 3
	InputLibrary = 4
)

// Add is cuLinkAddData: data of the given kind, name for messages.
func (l *Linker) Add(kind int, data []byte, name string, sm int) (Result, string) {
	switch kind {
	case InputPTX:
		if i := bytes.IndexByte(data, 0); i >= 0 {
			data = data[:i]
		}
		l.inputs = append(l.inputs, append([]byte(nil), data...))
	case InputFatbin:
		f, err := fatbin.Parse(data)
		if err != nil {
			return ErrInvalidImage, fmt.Sprintf("%s: %v", name, err)
		}
		e := f.PTXFor(sm)
		if e == nil {
			return ErrNoBinaryForGPU, fmt.Sprintf("%s holds %s and no PTX the emulator can run", name, f.Describe())
		}
		ptx, err := e.Payload()
		if err != nil {
			return ErrInvalidImage, err.Error()
		}
		l.inputs = append(l.inputs, ptx)
	default:
		return ErrNotSupported, fmt.Sprintf("%s: input kind %d (cubins, objects and libraries hold SASS; the emulator links PTX)", name, kind)
	}
	l.names = append(l.names, name)
	return Success, ""
}

var (
	headerLine = regexp.MustCompile(`(?m)^\s*\.(version|target|address_size)\b.*$`)
	externDecl = regexp.MustCompile(`(?ms)^\s*\.extern\s+\.func\s*(\([^)]*\))?\s*([A-Za-z_$%][\w$%]*)\s*(\([^)]*\))?\s*;`)
	definedFn  = regexp.MustCompile(`(?m)^\s*((?:\.visible|\.weak)\s+)?\.func\s*(?:\([^)]*\))?\s*([A-Za-z_$%][\w$%]*)\s*(?:\([^)]*\))?\s*$`)
	// A function's or kernel's header, up to its parameter list; what
	// follows tells a definition (a body) from a declaration (";").
	fnHeader = regexp.MustCompile(`(?m)^[ \t]*(?:(?:\.visible|\.weak)\s+)?\.(?:func|entry)\s*(?:\([^)]*\))?\s*[A-Za-z_$%][\w$%]*\s*(?:\([^)]*\))?[ \t]*$`)
	// Module-scope variables start in column 0 (declarations in bodies
	// are indented): definitions, and .extern declarations.
	varDef    = regexp.MustCompile(`(?m)^((?:\.visible|\.weak)\s+)?\.(?:global|const)\s[^\n]*?([A-Za-z_$%][\w$%]*)\s*(?:\[[^\]]*\]\s*)*(?:=[^\n]*)?;[ \t]*$`)
	externVar = regexp.MustCompile(`(?m)^\.extern\s+\.(?:global|const)\s[^\n]*?([A-Za-z_$%][\w$%]*)\s*(?:\[[^\]]*\]\s*)*;[ \t]*\n?`)
)

// symbols lists the module-scope functions and variables an input
// defines, and whether each is visible to other modules.
func symbols(in []byte) map[string]bool {
	out := map[string]bool{}
	for _, m := range definedFn.FindAllSubmatch(in, -1) {
		out[string(m[2])] = len(m[1]) > 0
	}
	for _, m := range varDef.FindAllSubmatch(in, -1) {
		out[string(m[2])] = len(m[1]) > 0
	}
	return out
}

// rename replaces the identifier old with new in a PTX text.
func rename(in []byte, old, new string) []byte {
	re := regexp.MustCompile(`(^|[^\w$%])` + regexp.QuoteMeta(old) + `([^\w$%]|$)`)
	return re.ReplaceAll(in, []byte("${1}"+strings.ReplaceAll(new, "$", "$$")+"${2}"))
}

// Complete is cuLinkComplete: one input is returned as it is; several are
// joined into one module. The first input's .version, .target and
// .address_size are kept; every function and kernel defined is declared
// first, then the module variables are defined; .extern
// declarations of what another input defines are dropped (variables) or
// made forward declarations (functions); and the internal symbols of one
// input that another input also defines are renamed apart.
func (l *Linker) Complete() ([]byte, Result, string) {
	switch len(l.inputs) {
	case 0:
		return nil, ErrInvalidValue, "nothing was added to the link"
	case 1:
		return l.inputs[0], Success, ""
	}
	defined := map[string]int{} // how many inputs define each name
	syms := make([]map[string]bool, len(l.inputs))
	for i, in := range l.inputs {
		syms[i] = symbols(in)
		for name := range syms[i] {
			defined[name]++
		}
	}
	var head, protos, vars, body bytes.Buffer
	for i, in := range l.inputs {
		for name, visible := range syms[i] {
			if !visible && defined[name] > 1 && i > 0 {
				in = rename(in, name, fmt.Sprintf("%s_u%d", name, i+1))
			}
		}
		if i == 0 {
			for _, m := range headerLine.FindAll(in, -1) {
				head.Write(bytes.TrimSpace(m))
				head.WriteByte('\n')
			}
		}
		in = headerLine.ReplaceAll(in, nil)
		in = externVar.ReplaceAllFunc(in, func(decl []byte) []byte {
			if m := externVar.FindSubmatch(decl); m != nil && defined[string(m[1])] > 0 {
				return nil
			}
			return decl
		})
		in = externDecl.ReplaceAllFunc(in, func(decl []byte) []byte {
			if m := externDecl.FindSubmatch(decl); m != nil && defined[string(m[2])] > 0 {
				return bytes.Replace(decl, []byte(".extern"), nil, 1)
			}
			return decl
		})
		protos.Write(prototypes(in))
		in = varDef.ReplaceAllFunc(in, func(def []byte) []byte {
			vars.Write(def)
			vars.WriteByte('\n')
			return nil
		})
		fmt.Fprintf(&body, "// %s\n", l.names[i])
		body.Write(in)
		body.WriteByte('\n')
	}
	head.Write(protos.Bytes())
	head.Write(vars.Bytes())
	head.Write(body.Bytes())
	return head.Bytes(), Success, ""
}

// prototypes declares each function and kernel that input in defines, so
// that the module variables, which the link places before every input's
// code, may name them in their initializers (a table of device function
// pointers, the device runtime's table of kernels).
func prototypes(in []byte) []byte {
	var out bytes.Buffer
	for _, loc := range fnHeader.FindAllIndex(in, -1) {
		rest := bytes.TrimLeft(in[loc[1]:], " \t\r\n")
		if len(rest) > 0 && rest[0] == ';' {
			continue // a declaration already
		}
		out.Write(bytes.TrimSpace(in[loc[0]:loc[1]]))
		out.WriteString(";\n")
	}
	return out.Bytes()
}
