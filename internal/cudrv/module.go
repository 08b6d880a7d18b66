package cudrv

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ptxkit/ptxkit/diag"
	"github.com/ptxkit/ptxkit/emu"
	"github.com/ptxkit/ptxkit/internal/fatbin"
	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/parser"
	"github.com/ptxkit/ptxkit/ptx/resolve"
)

// Module is a loaded module: its PTX parsed and resolved once; each
// kernel is decoded on its first use and kept (Function).
type Module struct {
	File    string
	ast     *ast.Module
	info    *resolve.Info
	layout  emu.Layout
	kernels []string
	funcs   map[string]Handle
	vars    map[string]*emu.Region // module variables, once a kernel decoded
}

// Function is a kernel of a module.
type Function struct {
	Module  Handle
	Name    string
	prog    *emu.Program
	errs    diag.List // decode errors, reported at launch
	decoded bool
	// MaxDynamicShared is CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES.
	MaxDynamicShared int
}

// Module address layout: module k's .global variables start at
// moduleGlobalBase + k*moduleStride, its .const variables at
// moduleConstBase + k*moduleStride, far from device allocations.
const (
	moduleGlobalBase = uint64(0x40) << 32
	moduleConstBase  = uint64(0x1000)
	moduleStride     = uint64(1) << 30
	maxModules       = 4096
)

// LoadModule is cuModuleLoadData for an image the caller has measured:
// PTX text, a fatbinary, or a cubin (which cannot run: the emulator
// executes PTX). detail explains a failure.
func (d *Driver) LoadModule(image []byte) (h Handle, r Result, detail string) {
	ptx, r, detail := d.ptxOf(image)
	if r != Success {
		return 0, r, detail
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.modules >= maxModules {
		return 0, ErrOutOfMemory, fmt.Sprintf("at most %d modules", maxModules)
	}
	k := uint64(d.modules)
	name := fmt.Sprintf("module-%d.ptx", d.modules+1)
	d.modules++
	if d.opt.DumpPTX != "" {
		if err := os.WriteFile(filepath.Join(d.opt.DumpPTX, name), ptx, 0o644); err != nil {
			d.Logf("%v", err)
		}
		name = filepath.Join(d.opt.DumpPTX, name)
	}
	m, errs := parser.ParseFile(name, ptx)
	if errs.HasErrors() {
		return 0, ErrInvalidPTX, diagText(errs)
	}
	info, rerrs := resolve.Module(m)
	if rerrs.HasErrors() {
		return 0, ErrInvalidPTX, diagText(rerrs)
	}
	mod := &Module{
		File: name, ast: m, info: info,
		layout: emu.Layout{Global: moduleGlobalBase + k*moduleStride, Const: moduleConstBase + k*moduleStride},
		funcs:  map[string]Handle{}, vars: map[string]*emu.Region{},
	}
	for _, s := range m.Stmts {
		if f, ok := s.(*ast.Function); ok && f.Kind == ".entry" && f.Body != nil && f.Name != nil {
			mod.kernels = append(mod.kernels, f.Name.Name)
		}
	}
	h = d.newHandle(mod)
	for _, k := range mod.kernels { // the module variables come with the first kernel that decodes
		if fn := d.function(h, mod, k); fn.prog != nil {
			break
		}
	}
	d.mapManaged(mod)
	return h, Success, ""
}

// mapManaged gives the module's __managed__ variables (.attribute(.managed))
// host memory at their device address, keeping their initial bytes.
// Without Options.HostMap, or when the address range is taken, they stay
// device-only and the host cannot reach them.
func (d *Driver) mapManaged(mod *Module) {
	for _, s := range mod.ast.Stmts {
		v, ok := s.(*ast.VarDecl)
		if !ok || v.Name == nil || !slices.Contains(v.Attrs, ".attribute(.managed)") {
			continue
		}
		r := mod.vars[v.Name.Name]
		if r == nil || r.Space != emu.SpaceGlobal || d.opt.HostMap == nil {
			continue
		}
		installed := d.mem.Lookup(r.Base, max(len(r.Data), 1))
		if installed == nil {
			continue
		}
		const page = 4096
		start := installed.Base &^ (page - 1)
		end := (installed.End() + page - 1) &^ (page - 1)
		host := d.opt.HostMap(start, int(end-start))
		if host == nil {
			d.Logf("__managed__ variable %s: no host memory at %#x; the host cannot reach it", v.Name.Name, installed.Base)
			continue
		}
		data := host[installed.Base-start : installed.Base-start+uint64(len(installed.Data))]
		copy(data, installed.Data)
		installed.Data = data
		d.allocs[installed.Base] = &allocation{region: installed, kind: MemUnified}
	}
}

func diagText(l diag.List) string {
	var b bytes.Buffer
	diag.WriteText(&b, l)
	return strings.TrimSpace(b.String())
}

// ptxOf returns the PTX text an image holds.
func (d *Driver) ptxOf(image []byte) ([]byte, Result, string) {
	switch {
	case len(image) >= 4 && image[0] == 0x50 && image[1] == 0xED && image[2] == 0x55 && image[3] == 0xBA:
		f, err := fatbin.Parse(image)
		if err != nil {
			return nil, ErrInvalidImage, err.Error()
		}
		e := f.PTXFor(d.gpu.SM())
		if e == nil {
			return nil, ErrNoBinaryForGPU, fmt.Sprintf("the fatbinary holds %s and no PTX for compute_%d or below; the emulator runs PTX: build with nvcc -gencode arch=compute_%d,code=compute_%d to embed it", f.Describe(), d.gpu.SM(), min(d.gpu.SM(), 90), min(d.gpu.SM(), 90))
		}
		ptx, err := e.Payload()
		if err != nil {
			return nil, ErrInvalidImage, err.Error()
		}
		return ptx, Success, ""
	case fatbin.IsELF(image):
		return nil, ErrNoBinaryForGPU, "the image is a cubin (SASS); the emulator runs PTX: load the PTX, or build with nvcc -gencode arch=compute_90,code=compute_90 to embed it"
	}
	if i := bytes.IndexByte(image, 0); i >= 0 {
		image = image[:i]
	}
	if !bytes.Contains(image, []byte(".version")) {
		return nil, ErrInvalidImage, "the image is neither PTX text, a fatbinary nor a cubin"
	}
	return image, Success, ""
}

// function returns the Function of kernel name, decoding it on first use.
// Callers hold d.mu.
func (d *Driver) function(mh Handle, mod *Module, name string) *Function {
	if h, ok := mod.funcs[name]; ok {
		fn, _ := lookup[*Function](d, h)
		return fn
	}
	fn := &Function{Module: mh, Name: name, decoded: true}
	fn.prog, fn.errs = emu.DecodeLayout(mod.ast, mod.info, name, mod.layout)
	if fn.prog != nil {
		if err := d.mem.AddVariables(fn.prog); err != nil {
			fn.prog, fn.errs = nil, nil
			d.Logf("%v", err)
		}
		for _, r := range fn.prog.Variables() {
			if _, ok := mod.vars[r.Name]; !ok {
				mod.vars[r.Name] = r
			}
		}
	}
	mod.funcs[name] = d.newHandle(fn)
	return fn
}

// GetFunction is cuModuleGetFunction.
func (d *Driver) GetFunction(mh Handle, name string) (Handle, Result) {
	d.mu.Lock()
	defer d.mu.Unlock()
	mod, ok := lookup[*Module](d, mh)
	if !ok {
		return 0, ErrInvalidHandle
	}
	found := false
	for _, k := range mod.kernels {
		found = found || k == name
	}
	if !found {
		return 0, ErrNotFound
	}
	d.function(mh, mod, name)
	return mod.funcs[name], Success
}

// GetGlobal is cuModuleGetGlobal: the address and size of a module
// variable (a __constant__ variable's address is in the constant window).
func (d *Driver) GetGlobal(mh Handle, name string) (uint64, uint64, Result) {
	d.mu.Lock()
	defer d.mu.Unlock()
	mod, ok := lookup[*Module](d, mh)
	if !ok {
		return 0, 0, ErrInvalidHandle
	}
	r, ok := mod.vars[name]
	if !ok {
		return 0, 0, ErrNotFound
	}
	if r.Space == emu.SpaceConst {
		return emu.ConstWindow + r.Base, uint64(len(r.Data)), Success
	}
	return r.Base, uint64(len(r.Data)), Success
}

// UnloadModule is cuModuleUnload. Module variables stay in memory (their
// addresses are not reused).
func (d *Driver) UnloadModule(mh Handle) Result {
	d.mu.Lock()
	defer d.mu.Unlock()
	mod, ok := lookup[*Module](d, mh)
	if !ok {
		return ErrInvalidHandle
	}
	for _, f := range mod.funcs {
		d.destroy(f)
	}
	d.destroy(mh)
	return Success
}

// Kernels lists a module's kernels.
func (d *Driver) Kernels(mh Handle) []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if mod, ok := lookup[*Module](d, mh); ok {
		return append([]string(nil), mod.kernels...)
	}
	return nil
}

// FunctionModule returns the module and name of a function.
func (d *Driver) FunctionModule(fh Handle) (Handle, string, Result) {
	d.mu.Lock()
	defer d.mu.Unlock()
	fn, ok := lookup[*Function](d, fh)
	if !ok {
		return 0, "", ErrInvalidHandle
	}
	return fn.Module, fn.Name, Success
}

// Params returns the byte size and offset of each kernel parameter.
func (d *Driver) Params(fh Handle) (sizes, offsets []int, r Result) {
	d.mu.Lock()
	defer d.mu.Unlock()
	fn, ok := lookup[*Function](d, fh)
	if !ok {
		return nil, nil, ErrInvalidHandle
	}
	if fn.prog == nil {
		return nil, nil, Success // reported at launch
	}
	for _, p := range fn.prog.Params {
		sizes = append(sizes, p.Size)
		offsets = append(offsets, p.Offset)
	}
	return sizes, offsets, Success
}
