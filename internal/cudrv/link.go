package cudrv

import (
	"bytes"
	"fmt"
	"regexp"

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
	definedFn  = regexp.MustCompile(`(?m)^\s*(?:\.visible\s+|\.weak\s+)?\.func\s*(?:\([^)]*\))?\s*([A-Za-z_$%][\w$%]*)`)
)

// Complete is cuLinkComplete: one input is returned as it is; several are
// joined into one module, the first input's .version, .target and
// .address_size kept, and the .extern declarations of functions another
// input defines made plain forward declarations.
func (l *Linker) Complete() ([]byte, Result, string) {
	switch len(l.inputs) {
	case 0:
		return nil, ErrInvalidValue, "nothing was added to the link"
	case 1:
		return l.inputs[0], Success, ""
	}
	defined := map[string]bool{}
	for _, in := range l.inputs {
		for _, m := range definedFn.FindAllSubmatch(in, -1) {
			defined[string(m[1])] = true
		}
	}
	var out bytes.Buffer
	for i, in := range l.inputs {
		if i > 0 {
			in = headerLine.ReplaceAll(in, nil)
		}
		in = externDecl.ReplaceAllFunc(in, func(decl []byte) []byte {
			if m := externDecl.FindSubmatch(decl); m != nil && defined[string(m[2])] {
				return bytes.Replace(decl, []byte(".extern"), nil, 1)
			}
			return decl
		})
		fmt.Fprintf(&out, "// %s\n", l.names[i])
		out.Write(in)
		out.WriteByte('\n')
	}
	return out.Bytes(), Success, ""
}
