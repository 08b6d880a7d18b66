package sass

import (
	"strconv"
	"strings"
)

// blankComments replaces /* ... */, // ... and # ... comments by spaces so
// that columns stay those of the original line (nvdisasm listings carry
// /*0008*/ addresses and /* 0x... */ encodings).
func blankComments(s string) string {
	b := []byte(s)
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] == '#' || b[i] == '/' && i+1 < len(b) && b[i+1] == '/':
			for ; i < len(b); i++ {
				b[i] = ' '
			}
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '*':
			end := strings.Index(string(b[i+2:]), "*/")
			stop := len(b)
			if end >= 0 {
				stop = i + 2 + end + 2
			}
			for ; i < stop; i++ {
				b[i] = ' '
			}
			i--
		}
	}
	return string(b)
}

// address parses "[Ra+imm]", "[Ra - 16]", "[ImmU24]", "[Ra.X4+URc+imm]",
// "[Ra.64+URc]", "desc[URc][Ra.64+imm]" and "[]".
func (p *parser) address() {
	p.skipSpace()
	if strings.HasPrefix(p.s[p.i:], "desc") {
		p.i += len("desc")
		p.expect('[')
		w, c := p.next()
		p.col[fURc], p.col[fDesc] = c, c
		p.in.URc = p.ureg(w, c)
		p.in.Desc, p.in.UR = true, true
		p.in.DescShown = p.arch.SM < 90 // the bit that makes nvdisasm print it
		p.expect(']')
	}
	p.expect('[')
	p.col[fRa] = p.i + 1
	p.col[fOff] = p.i
	var haveReg, haveUR, haveImm bool
	for first := true; ; first = false {
		p.skipSpace()
		if p.peek() == ']' {
			p.i++
			break
		}
		sign := int64(1)
		if !first {
			switch p.peek() {
			case '+':
			case '-':
				sign = -1
			default:
				p.fail("expected '+', '-' or ']' in address, found %s", p.found())
			}
			p.i++
			p.skipSpace()
		}
		if p.peek() == '-' {
			sign = -sign
			p.i++
			p.skipSpace()
		}
		w, c := p.next()
		switch {
		case w == "":
			p.fail("unterminated address")
		case w[0] >= '0' && w[0] <= '9':
			if haveImm {
				p.failAt(c, "offset", "more than one offset")
			}
			haveImm = true
			p.col[fOff], p.col[fOff32] = c, c
			p.in.Off = sign * p.number(w, c)
		case strings.HasPrefix(w, "UR"):
			if haveUR || sign < 0 {
				p.failAt(c, "URc", "unexpected uniform register %q", w)
			}
			haveUR = true
			p.col[fURc] = c
			p.in.URc = p.ureg(w, c)
			p.in.UR = true
		default:
			if haveReg || sign < 0 {
				p.failAt(c, "Ra", "unexpected register %q", w)
			}
			haveReg = true
			p.col[fRa], p.col[fScale], p.col[fRa64] = c, c, c
			p.baseReg(w, c)
		}
	}
	if p.col[fOff32] == 0 {
		p.col[fOff32] = p.col[fOff]
	}
}

// baseReg parses Ra with its optional .64, .U32 or .X4/.X8/.X16 suffix.
func (p *parser) baseReg(w string, col int) {
	parts := strings.Split(w, ".")
	if parts[0] == "???255" && len(parts) == 2 && parts[1] == "64" {
		parts[0] = "RZ" // nvdisasm's name for RZ.64 outside desc[]
	}
	r, ok := parseReg(parts[0], "R", RZ)
	if !ok {
		p.failAt(col, "Ra", "bad address register %q (want R0-R254 or RZ)", parts[0])
	}
	p.in.Ra = r
	p.raZero = r == RZ
	for _, s := range parts[1:] {
		switch s {
		case "64":
			p.in.Ra64 = true
		case "U32":
			p.in.Ra64 = false
		case "X4", "X8", "X16":
			p.in.Scale = uint8(index(scaleNames[:], s))
		default:
			p.failAt(col, "Ra", "unknown register suffix .%s", s)
		}
	}
}

func (p *parser) ureg(w string, col int) uint8 {
	r, ok := parseReg(w, "UR", URZ)
	if !ok {
		p.failAt(col, "URc", "bad uniform register %q (want UR0-UR254 or URZ)", w)
	}
	return r
}

// number parses a decimal or 0x-prefixed hexadecimal offset.
func (p *parser) number(w string, col int) int64 {
	base, t := 10, w
	if len(w) > 2 && (w[:2] == "0x" || w[:2] == "0X") {
		base, t = 16, w[2:]
	}
	v, err := strconv.ParseUint(t, base, 40)
	if err != nil {
		p.failAt(col, "offset", "bad or too large number %q", w)
	}
	return int64(v)
}

func index(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// annotations parses the scheduling and ?PM annotations after the operands,
// an optional ';' and a closing dual-issue brace.
func (p *parser) annotations() {
	for {
		p.skipSpace()
		if p.eof() {
			return
		}
		c := p.peek()
		if c == ';' || c == '}' {
			p.i++
			continue
		}
		if c != '?' && c != '&' {
			p.fail("unexpected %s after operands", p.found())
		}
		start := p.i
		for !p.eof() && p.s[p.i] != ' ' && p.s[p.i] != '\t' && p.s[p.i] != ';' {
			p.i++
		}
		if !p.annotation(p.s[start:p.i]) {
			p.failAt(start+1, "schedule", "unknown annotation %q", p.s[start:p.i])
		}
	}
}

func (p *parser) annotation(a string) bool {
	s := &p.in.Sched
	num := func(t string, max uint64) (uint8, bool) {
		t = strings.TrimPrefix(t, "=")
		v, err := strconv.ParseUint(t, 0, 8)
		return uint8(v), err == nil && v <= max
	}
	var ok bool
	switch {
	case strings.HasPrefix(a, "?PM"):
		p.in.PM, ok = num(a[3:], 3)
	case strings.HasPrefix(a, "?WAIT"):
		s.Yield = 0
		s.Stall, ok = num(strings.TrimSuffix(a[5:], "_END_GROUP"), 15)
	case strings.HasPrefix(a, "?trans"):
		s.Yield = 1
		s.Stall, ok = num(a[6:], 15)
	case strings.HasPrefix(a, "&req="):
		s.Req, ok = reqMask(a[5:])
	case strings.HasPrefix(a, "&rd"):
		s.Rd, ok = num(a[3:], 7)
	case strings.HasPrefix(a, "&wr"):
		s.Wr, ok = num(a[3:], 7)
	case strings.HasPrefix(a, "&reuse="):
		s.Reuse, ok = num(a[7:], 15)
	case strings.HasPrefix(a, "&desc="):
		// A descriptor register nvdisasm does not print (SM80-SM89).
		p.in.URc, ok = parseReg(a[6:], "UR", URZ)
		p.in.Desc, p.in.UR, p.in.DescShown = true, true, false
		p.col[fDesc] = p.i - len(a) + 1
	}
	return ok
}

// reqMask parses "{0,3}" or a number as a 6-bit wait mask.
func reqMask(t string) (uint8, bool) {
	if !strings.HasPrefix(t, "{") {
		v, err := strconv.ParseUint(t, 0, 8)
		return uint8(v), err == nil && v < 64
	}
	if !strings.HasSuffix(t, "}") {
		return 0, false
	}
	var m uint8
	for _, e := range strings.Split(t[1:len(t)-1], ",") {
		v, err := strconv.ParseUint(strings.TrimSpace(e), 10, 8)
		if err != nil || v > 5 {
			return 0, false
		}
		m |= 1 << v
	}
	return m, true
}
