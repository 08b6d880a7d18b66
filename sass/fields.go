package sass

// get returns the encoded value of field f of in. Offsets are returned in
// two's complement; the encoder masks them to the field width after its
// range check.
func (in *Inst) get(f field) uint64 {
	switch f {
	case fPred:
		return uint64(in.Pred)
	case fPredNeg:
		return b2u(in.PredNeg)
	case fRa:
		return uint64(in.Ra)
	case fRb:
		return uint64(in.Rb)
	case fOff, fOff32:
		return uint64(in.Off)
	case fSize:
		return uint64(in.Size)
	case fCop:
		return uint64(in.Cop)
	case fE:
		return b2u(in.E)
	case fPredC:
		return uint64(in.PredC)
	case fURc:
		return uint64(in.URc)
	case fScale:
		return uint64(in.Scale)
	case fPolicy:
		return uint64(in.Policy)
	case fSem:
		return uint64(in.Sem)
	case fDesc:
		return b2u(in.Desc)
	case fRa64:
		return b2u(in.Ra64)
	case fDescShow:
		return b2u(in.DescShown)
	case fPM:
		return uint64(in.PM)
	}
	return in.Sched.get(f)
}

// set stores the raw field value v (already extracted from a word) into in.
// Offsets are sign-extended by the caller.
func (in *Inst) set(f field, v uint64) {
	switch f {
	case fPred:
		in.Pred = uint8(v)
	case fPredNeg:
		in.PredNeg = v != 0
	case fRa:
		in.Ra = uint8(v)
	case fRb:
		in.Rb = uint8(v)
	case fOff, fOff32:
		in.Off = int64(v)
	case fSize:
		in.Size = Size(v)
	case fCop:
		in.Cop = uint8(v)
	case fE:
		in.E = v != 0
	case fPredC:
		in.PredC = uint8(v)
	case fURc:
		in.URc = uint8(v)
	case fScale:
		in.Scale = uint8(v)
	case fPolicy:
		in.Policy = uint8(v)
	case fSem:
		in.Sem = uint8(v)
	case fDesc:
		in.Desc = v != 0
	case fRa64:
		in.Ra64 = v != 0
	case fDescShow:
		in.DescShown = v != 0
	case fPM:
		in.PM = uint8(v)
	default:
		in.Sched.set(f, v)
	}
}

func (s *Sched) get(f field) uint64 {
	switch f {
	case fStall:
		return uint64(s.Stall)
	case fYield:
		return uint64(s.Yield)
	case fWr:
		return uint64(s.Wr)
	case fRd:
		return uint64(s.Rd)
	case fReq:
		return uint64(s.Req)
	case fReuse:
		return uint64(s.Reuse)
	}
	return 0
}

func (s *Sched) set(f field, v uint64) {
	switch f {
	case fStall:
		s.Stall = uint8(v)
	case fYield:
		s.Yield = uint8(v)
	case fWr:
		s.Wr = uint8(v)
	case fRd:
		s.Rd = uint8(v)
	case fReq:
		s.Req = uint8(v)
	case fReuse:
		s.Reuse = uint8(v)
	}
}

func isSchedField(f field) bool { return f >= fStall && f <= fReuse }

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// schedSlot lays out a Sched as the 21-bit Maxwell control slot, which is
// also the layout of Turing+ bits [125:105] (ENCODING.md T2, T3).
var schedSlot = []bitField{{f: fStall, lo: 0, n: 4}, {f: fYield, lo: 4, n: 1}, {f: fWr, lo: 5, n: 3}, {f: fRd, lo: 8, n: 3}, {f: fReq, lo: 11, n: 6}, {f: fReuse, lo: 17, n: 4}}

// Slot returns the 21-bit control slot of s.
func (s Sched) Slot() uint64 {
	var w Word
	for _, b := range schedSlot {
		w.setBits(b.lo, b.n, s.get(b.f))
	}
	return w.Lo
}

// SchedFromSlot decodes a 21-bit control slot.
func SchedFromSlot(v uint64) Sched {
	var s Sched
	w := Word{Lo: v}
	for _, b := range schedSlot {
		s.set(b.f, w.bits(b.lo, b.n))
	}
	return s
}

// ControlWord packs the schedules of a Maxwell bundle's three instructions
// into its control word (slots at bits 0, 21 and 42).
func ControlWord(s [3]Sched) uint64 {
	return s[0].Slot() | s[1].Slot()<<21 | s[2].Slot()<<42
}

// SplitControl unpacks a Maxwell control word.
func SplitControl(c uint64) [3]Sched {
	const m = 1<<21 - 1
	return [3]Sched{SchedFromSlot(c & m), SchedFromSlot(c >> 21 & m), SchedFromSlot(c >> 42 & m)}
}
