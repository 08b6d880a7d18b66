package sass

import "math/rand/v2"

// randomInst returns a random instruction that Encode accepts for arch
// (misaligned data registers only when lax).
func randomInst(r *rand.Rand, arch Arch, lax bool) Inst {
	for {
		in := randomFields(r, arch)
		if _, err := (Options{AllowMisaligned: lax}).Encode(in, arch); err == nil {
			return in
		}
	}
}

func randomFields(r *rand.Rand, arch Arch) Inst {
	ops := []Op{STS, STS, STL, STL, STG, ST}
	switch {
	case arch.SM >= 100:
		ops = ops[:5] // ST and STAS are not modelled on Blackwell
	case arch.SM >= 90:
		ops = append(ops, STAS)
	case arch.SM < 80 && arch.Gen() == Turing:
		ops = ops[:4] // STG/ST are modelled from SM80 on, STAS on SM90
	}
	in := NewInst(ops[r.IntN(len(ops))])
	in.Pred = uint8(r.IntN(8))
	in.PredNeg = r.IntN(4) == 0
	in.Size = Size(r.IntN(8))
	if r.IntN(3) == 0 {
		in.Size = Size32
	}
	in.Ra = randReg(r)
	in.Rb = randReg(r)
	in.Off = randOff(r)
	if arch.Gen() == Maxwell {
		return randomMaxwell(r, in)
	}
	return randomTuring(r, arch, in)
}

func randReg(r *rand.Rand) uint8 {
	if r.IntN(8) == 0 {
		return RZ
	}
	return uint8(r.IntN(255))
}

func randOff(r *rand.Rand) int64 {
	switch r.IntN(4) {
	case 0:
		return 0
	case 1:
		return int64(r.IntN(64)) - 32
	}
	return int64(r.IntN(1<<24)) - 1<<23
}

func randomMaxwell(r *rand.Rand, in Inst) Inst {
	switch in.Op {
	case STL, STG, ST:
		in.Cop = uint8(r.IntN(4))
	}
	if in.Op == STG || in.Op == ST {
		in.E = r.IntN(2) == 0
	}
	if in.Op == ST {
		in.PredC = uint8(r.IntN(8))
		if r.IntN(2) == 0 {
			in.Off = int64(int32(r.Uint32()))
		}
	}
	if in.Ra == RZ && in.Off < 0 {
		in.Off = -in.Off
	}
	// Stall 0 with the no-yield bit marks dual issue; keep it out.
	in.Sched = Sched{Stall: uint8(1 + r.IntN(15)), Yield: uint8(r.IntN(2)), Wr: 7, Rd: uint8(r.IntN(8)), Req: uint8(r.IntN(64))}
	return in
}

func randomTuring(r *rand.Rand, arch Arch, in Inst) Inst {
	if arch.SM >= 86 && r.IntN(2) == 0 {
		in.PM = uint8(r.IntN(4))
	}
	in.UR = r.IntN(3) == 0
	if in.UR {
		in.URc = randUR(r, arch)
	}
	switch in.Op {
	case STS:
		in.Scale = uint8(r.IntN(4))
	case STL:
		in.Policy = uint8(r.IntN(8))
		if in.UR && arch.SM >= 80 && r.IntN(3) == 0 {
			in.Desc = true
			in.DescShown = arch.SM < 90 && r.IntN(2) == 0
		}
	case STG, ST:
		in.Policy = uint8(r.IntN(8))
		in.Sem = uint8(r.IntN(16))
		in.E = r.IntN(8) != 0
		if in.Op == STG && (arch.SM >= 100 || r.IntN(4) != 0) || in.UR {
			in.UR = true
			in.URc = randUR(r, arch)
			in.Desc = r.IntN(2) == 0
			in.Ra64 = in.Desc || r.IntN(2) == 0
			in.DescShown = in.Desc && arch.SM < 90 && r.IntN(2) == 0
		} else if r.IntN(2) == 0 {
			in.Off = int64(int32(r.Uint32()))
		}
	case STAS:
		in.UR = true
		in.URc = randUR(r, arch)
		in.Ra64 = r.IntN(2) == 0
		in.Size = Size(4 + r.IntN(3))
		if r.IntN(4) == 0 {
			in.Sem = uint8(r.IntN(16))
		}
	}
	if in.Ra == RZ && !in.UR && in.Off < 0 {
		in.Off = -in.Off
	}
	for {
		in.Sched = Sched{Stall: uint8(r.IntN(16)), Yield: uint8(r.IntN(2)), Wr: 7, Rd: uint8(r.IntN(8)), Req: uint8(r.IntN(64)), Reuse: uint8(r.IntN(6))}
		if u := in.Sched.Yield<<4 | in.Sched.Stall; u != 16 && u < 28 && (u != 0 || in.Sched.Reuse == 0) {
			return in
		}
	}
}

// randUR returns a uniform register of arch, URZ one time in eight.
func randUR(r *rand.Rand, arch Arch) uint8 {
	n := 63
	if arch.SM >= 100 {
		n = 255
	}
	if r.IntN(8) == 0 {
		return URZ
	}
	return uint8(r.IntN(n))
}
