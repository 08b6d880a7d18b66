package emu

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"sync"

	"github.com/ptxkit/ptxkit/ptx/ast"
)

// Device-side printf: calls of the CUDA runtime's vprintf(format, args)
// (declared .extern, as nvcc and llc emit for printf) format on the host.
// Output is kept per cluster in emission order and returned in cluster
// order, so it is deterministic for a given seed whatever --jobs is.

// maxPrintfBytes bounds the printf output kept per cluster.
const maxPrintfBytes = 1 << 20

const specPrintf = "CUDA C++ Programming Guide, Formatted Output (printf)"

// isVprintf reports whether a call target is the runtime's vprintf.
func (d *Decoder) isVprintf(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	if !ok || id.Name != "vprintf" {
		return false
	}
	f := d.funcOf(id)
	return f == nil || f.Body == nil
}

// printfInfo holds the frame addresses of vprintf's .param variables.
type printfInfo struct {
	format, args uint64 // caller .param variables holding the two pointers
	ret          uint64 // caller .param variable for the result, or noRet
}

const noRet = ^uint64(0)

func decodeVprintf(d *Decoder, in *ast.Instruction, out *Inst, rets, args []ast.Expr) error {
	if len(args) != 2 || len(rets) > 1 {
		return d.Errorf(in, "vprintf takes two arguments (format, argument buffer) and returns one value")
	}
	pi := &printfInfo{ret: noRet}
	for i, a := range args {
		s, err := d.paramVar(a)
		if err != nil {
			return err
		}
		if i == 0 {
			pi.format = s.addr
		} else {
			pi.args = s.addr
		}
	}
	if len(rets) == 1 {
		s, err := d.paramVar(rets[0])
		if err != nil {
			return err
		}
		pi.ret = s.addr
	}
	out.Ext = pi
	out.Exec = execVprintf
	return nil
}

func execVprintf(w *Warp, in *Inst) Status {
	pi := in.Ext.(*printfInfo)
	cl := w.CTA.cluster
	for m := w.Exec; m != 0; m &= m - 1 {
		l := lane(m)
		fr := w.frame(l)
		fmtAddr := binary.LittleEndian.Uint64(fr[pi.format:])
		argAddr := binary.LittleEndian.Uint64(fr[pi.args:])
		format, ok := w.cString(l, fmtAddr)
		if !ok {
			return Fault
		}
		text, n, ok := w.formatPrintf(l, format, argAddr)
		if !ok {
			return Fault
		}
		if len(cl.printf)+len(text) <= maxPrintfBytes {
			cl.printf = append(cl.printf, text...)
		} else {
			cl.printfLost = true
		}
		if pi.ret != noRet {
			binary.LittleEndian.PutUint32(fr[pi.ret:], uint32(n))
		}
	}
	return Continue
}

// cString reads a NUL-terminated string at generic address a.
func (w *Warp) cString(l int, a uint64) ([]byte, bool) {
	var s []byte
	for i := uint64(0); i < 4096; i++ {
		b := w.Bytes(l, SpaceGeneric, a+i, 1, false)
		if b == nil {
			return nil, false
		}
		if b[0] == 0 {
			return s, true
		}
		s = append(s, b[0])
	}
	return s, true
}

// formatPrintf expands format with arguments packed at argAddr as the
// CUDA ABI packs them (each aligned to its size; floats promoted to
// double). It returns the text and the number of arguments used.
func (w *Warp) formatPrintf(l int, format []byte, argAddr uint64) ([]byte, int, bool) {
	var out []byte
	off := uint64(0)
	n := 0
	arg := func(size uint64) (uint64, bool) {
		off = (off + size - 1) &^ (size - 1)
		b := w.Bytes(l, SpaceGeneric, argAddr+off, int(size), false)
		if b == nil {
			return 0, false
		}
		off += size
		n++
		if size == 8 {
			return binary.LittleEndian.Uint64(b), true
		}
		return uint64(binary.LittleEndian.Uint32(b)), true
	}
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			out = append(out, c)
			continue
		}
		j := i + 1
		for j < len(format) && strconv.IntSize > 0 && indexByte("-+ #0123456789.", format[j]) {
			j++
		}
		long := 0
		for j < len(format) && (format[j] == 'l' || format[j] == 'h' || format[j] == 'z') {
			if format[j] == 'l' || format[j] == 'z' {
				long++
			}
			j++
		}
		if j >= len(format) {
			out = append(out, format[i:]...)
			break
		}
		conv := format[j]
		spec := string(format[i+1 : j])
		i = j
		size := uint64(4)
		if long > 0 {
			size = 8
		}
		switch conv {
		case '%':
			out = append(out, '%')
		case 'd', 'i':
			v, ok := arg(size)
			if !ok {
				return nil, 0, false
			}
			x := int64(v)
			if size == 4 {
				x = int64(int32(v))
			}
			out = append(out, sprintf("%"+stripLen(spec)+"d", x)...)
		case 'u', 'x', 'X', 'o', 'c':
			v, ok := arg(size)
			if !ok {
				return nil, 0, false
			}
			verb := string(conv)
			if conv == 'u' {
				verb = "d"
			}
			out = append(out, sprintf("%"+stripLen(spec)+verb, v)...)
		case 'f', 'F', 'e', 'E', 'g', 'G', 'a', 'A':
			v, ok := arg(8)
			if !ok {
				return nil, 0, false
			}
			verb := string(conv)
			if conv == 'a' || conv == 'A' {
				verb = "x"
			}
			out = append(out, sprintf("%"+stripLen(spec)+verb, math.Float64frombits(v))...)
		case 's':
			v, ok := arg(8)
			if !ok {
				return nil, 0, false
			}
			s, ok := w.cString(l, v)
			if !ok {
				return nil, 0, false
			}
			out = append(out, sprintf("%"+stripLen(spec)+"s", s)...)
		case 'p':
			v, ok := arg(8)
			if !ok {
				return nil, 0, false
			}
			out = append(out, sprintf("%#x", v)...)
		default:
			out = append(out, format[i-len(spec)-1:i+1]...)
		}
	}
	return out, n, true
}

func indexByte(set string, c byte) bool {
	for i := 0; i < len(set); i++ {
		if set[i] == c {
			return true
		}
	}
	return false
}

// stripLen drops C length modifiers from a conversion's flags.
func stripLen(spec string) string {
	out := make([]byte, 0, len(spec))
	for i := 0; i < len(spec); i++ {
		if c := spec[i]; c != 'l' && c != 'h' && c != 'z' {
			out = append(out, c)
		}
	}
	return string(out)
}

// maxLaunchPrintfBytes bounds the printf output a launch keeps: the output
// of the first clusters, in cluster order, that fits.
const maxLaunchPrintfBytes = 16 << 20

// printLog collects the printf output of a launch's clusters, which may
// finish in any order, keeping the longest prefix in cluster order that
// fits in maxLaunchPrintfBytes. Output is dropped from the highest cluster
// down, so what is kept does not depend on the order clusters finish in.
type printLog struct {
	mu       sync.Mutex
	entries  []printEntry // by cluster index
	bytes    int
	dropFrom int // clusters from this index on have their output dropped
}

type printEntry struct {
	cluster int
	text    []byte
}

func newPrintLog() *printLog { return &printLog{dropFrom: math.MaxInt} }

// add records the output of cluster i.
func (l *printLog) add(i int, text []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if i >= l.dropFrom {
		return
	}
	k := sort.Search(len(l.entries), func(k int) bool { return l.entries[k].cluster > i })
	l.entries = slices.Insert(l.entries, k, printEntry{i, text})
	l.bytes += len(text)
	for l.bytes > maxLaunchPrintfBytes {
		top := l.entries[len(l.entries)-1]
		l.entries = l.entries[:len(l.entries)-1]
		l.bytes -= len(top.text)
		l.dropFrom = top.cluster
	}
}

// output returns the kept output of clusters up to last, in order.
func (l *printLog) output(last int) []byte {
	var out []byte
	for _, e := range l.entries {
		if e.cluster <= last {
			out = append(out, e.text...)
		}
	}
	if l.dropFrom <= last {
		out = append(out, fmt.Sprintf("[printf output of clusters from %d on not kept: more than %d bytes in all]\n", l.dropFrom, maxLaunchPrintfBytes)...)
	}
	return out
}
