package emu

import (
	"github.com/ptxkit/ptxkit/ptx/ast"
)

// Recursion (PTX ISA §9.7.12.7: a .func may call itself, directly or
// through other functions and function pointers).
//
// Functions that are not part of a call cycle keep the static layout: their
// registers are fixed slots and their .local and .param variables fixed
// offsets in the thread's local frame. A function that is part of a cycle
// (a recursive function) gets one activation frame per call instead: its
// .local and .param variables are laid out relative to a frame base, held
// per thread in the function's register frameInfo.base, and each call
// takes the next frame of the thread's stack (Program.stackBase on, at
// most maxCallDepth frames of the largest recursive function's size).
// Addresses of those variables are therefore distinct per activation, as
// on the GPU, and may be passed down the recursion. The function's
// registers are saved on the thread's register stack (Warp.saved) when it
// is entered and restored when it returns, so each activation sees its own.

// frameInfo describes the activation frame of a recursive function.
type frameInfo struct {
	base    int32 // register slot holding the frame base (local-space offset)
	size    int   // bytes of .local and .param variables
	slotLo  int32 // the function's register slots (slot bases) [slotLo, slotHi)
	slotHi  int32
	symbols []frameSymbol // variables whose address is taken as a value
}

// frameSymbol is a register holding base+off for a frame variable whose
// address is used as a value (mov %rd, __local_depot0).
type frameSymbol struct {
	slot int32
	off  uint64
}

// recursiveFuncs returns the functions of m that are part of a call
// cycle. An indirect call may reach any .func whose name is used as a
// value elsewhere in the module. funcOf returns the function a name use
// refers to, or nil.
func recursiveFuncs(m *ast.Module, funcOf func(ast.Expr) *ast.Function) map[*ast.Function]bool {
	calls := map[*ast.Function][]*ast.Function{}
	taken := map[*ast.Function]bool{}
	indirect := map[*ast.Function]bool{}
	for _, s := range m.Stmts {
		f, ok := s.(*ast.Function)
		if !ok || f.Body == nil {
			continue
		}
		walkInsts(f.Body.Stmts, func(in *ast.Instruction) {
			for i, op := range in.Operands {
				var g *ast.Function
				if _, ok := op.(*ast.Ident); ok {
					g = funcOf(op)
				}
				switch {
				case in.Opcode == "call" && i == firstTarget(in):
					if g != nil {
						calls[f] = append(calls[f], g)
					} else if _, isReg := op.(*ast.Reg); isReg {
						indirect[f] = true
					}
				case g != nil && g.Kind == ".func":
					taken[g] = true
				}
			}
		})
	}
	for _, s := range m.Stmts {
		if v, ok := s.(*ast.VarDecl); ok && v.Init != nil {
			markTaken(v.Init, funcOf, taken)
		}
	}
	for f := range indirect {
		for g := range taken {
			calls[f] = append(calls[f], g)
		}
	}
	rec := map[*ast.Function]bool{}
	for f := range calls {
		seen := map[*ast.Function]bool{}
		stack := append([]*ast.Function(nil), calls[f]...)
		for len(stack) > 0 {
			g := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if g == f {
				rec[f] = true
				break
			}
			if !seen[g] {
				seen[g] = true
				stack = append(stack, calls[g]...)
			}
		}
	}
	return rec
}

// firstTarget is the index of a call's target operand (after the
// optional return list).
func firstTarget(in *ast.Instruction) int {
	for i, op := range in.Operands {
		if _, ok := op.(*ast.ParenList); !ok {
			return i
		}
	}
	return -1
}

func walkInsts(stmts []ast.Stmt, fn func(*ast.Instruction)) {
	for _, s := range stmts {
		switch x := s.(type) {
		case *ast.Instruction:
			fn(x)
		case *ast.Block:
			walkInsts(x.Stmts, fn)
		}
	}
}

func markTaken(e ast.Expr, funcOf func(ast.Expr) *ast.Function, taken map[*ast.Function]bool) {
	switch x := e.(type) {
	case *ast.InitList:
		for _, y := range x.Elems {
			markTaken(y, funcOf, taken)
		}
	case *ast.Ident:
		if g := funcOf(x); g != nil {
			taken[g] = true
		}
	case *ast.CallExpr:
		for _, y := range x.Args {
			markTaken(y, funcOf, taken)
		}
	case *ast.BinaryExpr:
		markTaken(x.X, funcOf, taken)
		markTaken(x.Y, funcOf, taken)
	}
}

// allocVar reserves n bytes for a .local or .param variable of the
// function being lowered: in its activation frame when it is recursive
// (the returned symbol fields say so), in the static frame otherwise.
func (d *Decoder) allocVar(sp Space, n, align int) *symbol {
	fi := d.cur
	if fi == nil || fi.frame == nil {
		return &symbol{kind: symVar, space: sp, addr: d.allocLocal(n, align), size: n}
	}
	fr := fi.frame
	align = max(align, 1)
	off := (fr.size + align - 1) &^ (align - 1)
	fr.size = off + n
	return &symbol{kind: symVar, space: sp, addr: uint64(off), size: n, frame: fr}
}

// frameSymAddr returns a register holding the address of frame variable s
// (filled when the function is entered).
func (d *Decoder) frameSymAddr(s *symbol) int32 {
	if s.addrSlot == 0 {
		s.addrSlot = d.NewSlot() + 1 // +1 so that slot 0 reads as unset
		s.frame.symbols = append(s.frame.symbols, frameSymbol{slot: s.addrSlot - 1, off: s.addr})
	}
	return s.addrSlot - 1
}

// layoutStack places the stack after the static frame: room for
// maxCallDepth activations of the largest recursive function, and
// allocaStackBytes more when the program uses alloca.
func (d *Decoder) layoutStack() {
	most := 0
	for _, fi := range d.lowered {
		if fi.frame != nil {
			fi.frame.size = (fi.frame.size + 15) &^ 15
			most = max(most, fi.frame.size)
		}
	}
	if most == 0 && !d.prog.usesAlloca {
		return
	}
	base := max((d.prog.localFrame+15)&^15, 16) // never 0: Warp.sp 0 means unset
	d.prog.stackBase = base
	d.prog.localFrame = base + maxCallDepth*most
	if d.prog.usesAlloca {
		d.prog.localFrame += allocaStackBytes
	}
}

// enterFrame starts an activation of a recursive function for lane l:
// saves the function's registers, takes the next stack frame, and sets
// the frame base and the address registers. It returns false (after a
// report) when the stack is full.
func (w *Warp) enterFrame(l int, fr *frameInfo) bool {
	base := w.stackPtr(l)
	if base+fr.size > w.prog.localFrame {
		w.Fault(l, ruleCallDepth, specCall, "recursion deeper than the %d-byte stack of the thread", w.prog.localFrame-w.prog.stackBase)
		return false
	}
	for s := fr.slotLo; s < fr.slotHi; s += 32 {
		w.saved[l] = append(w.saved[l], w.R[s+int32(l)])
	}
	w.sp[l] = int32(base + fr.size)
	w.R[fr.base+int32(l)] = uint64(base)
	for _, sym := range fr.symbols {
		w.R[sym.slot+int32(l)] = uint64(base) + sym.off
	}
	clear(w.frame(l)[base : base+fr.size])
	return true
}

// leaveFrame ends the activation of lane l: the registers of the
// activation below are restored (ret already reset the stack pointer).
func (w *Warp) leaveFrame(l int, fr *frameInfo) {
	n := int(fr.slotHi-fr.slotLo) / 32
	st := w.saved[l]
	top := st[len(st)-n:]
	for i, s := 0, fr.slotLo; s < fr.slotHi; i, s = i+1, s+32 {
		w.R[s+int32(l)] = top[i]
	}
	w.saved[l] = st[:len(st)-n]
}

// frameBase is the frame base of lane l for a variable of frame fr (0
// for the static frame).
func (w *Warp) frameBase(l int, fr *frameInfo) uint64 {
	if fr == nil {
		return 0
	}
	return w.R[fr.base+int32(l)]
}
