package main

import (
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ptxkit/ptxkit/emu"
)

// This file converts the --arg values of ptxkit run and gpu-diff to
// emu.Arg values; emu.Launch.Check then checks them against the kernel.

// maxBufferBytes bounds the buffer arguments of a launch together.
const maxBufferBytes = emu.MaxBufferBytes

// kernelArgs converts --arg values to kernel arguments. When their count
// is not the kernel's, it converts none: Launch.Check reports the count.
func kernelArgs(p *emu.Program, vals []string) ([]emu.Arg, error) {
	out := make([]emu.Arg, len(vals))
	if len(vals) != len(p.Params) {
		return out, nil
	}
	for i, v := range vals {
		a, err := parseArg(v, p.Params[i])
		if err != nil {
			return nil, fmt.Errorf("--arg %d (%s): %v", i, p.Params[i].Name, err)
		}
		out[i] = a
	}
	return out, nil
}

// parseArg converts one --arg value. Buffers are counted against
// emu.MaxBufferBytes by Launch.Check, before they are allocated; a file
// is read only up to that size.
func parseArg(v string, prm emu.Param) (emu.Arg, error) {
	switch {
	case strings.HasPrefix(v, "buf:"):
		spec := strings.Split(v[4:], ":")
		n, err := strconv.ParseInt(spec[0], 0, 64)
		if err != nil || n < 0 {
			return emu.Arg{}, fmt.Errorf("buffer size %q must be a byte count between 0 and %d", spec[0], maxBufferBytes)
		}
		a := emu.Arg{IsBuffer: true, Size: int(min(n, math.MaxInt))}
		for _, opt := range spec[1:] {
			f, ok := strings.CutPrefix(opt, "fill=")
			if !ok {
				return emu.Arg{}, fmt.Errorf("unknown buffer option %q (want fill=BYTE)", opt)
			}
			x, err := strconv.ParseUint(f, 0, 8)
			if err != nil {
				return emu.Arg{}, fmt.Errorf("fill byte %q must be 0..255", f)
			}
			a.Fill = byte(x)
		}
		return a, nil
	case strings.HasPrefix(v, "tex:"), strings.HasPrefix(v, "surf:"):
		return parseTextureArg(v)
	case strings.HasPrefix(v, "tmap:"):
		return parseTensorMapArg(v[5:], prm)
	case strings.HasPrefix(v, "hex:"):
		b, err := hex.DecodeString(strings.ReplaceAll(v[4:], "_", ""))
		if err != nil {
			return emu.Arg{}, fmt.Errorf("hex bytes %q: %v", v[4:], err)
		}
		if len(b) > prm.Size {
			return emu.Arg{}, fmt.Errorf("%d bytes given for a %d-byte parameter", len(b), prm.Size)
		}
		return emu.Arg{Raw: b}, nil
	case strings.HasPrefix(v, "file:"):
		if v[5:] == "" || v[5:] == "-" {
			return emu.Arg{}, fmt.Errorf("file: needs a PATH")
		}
		b, err := readBounded(v[5:], nil, maxBufferBytes)
		if errors.Is(err, errInputTooLarge) {
			return emu.Arg{}, fmt.Errorf("%v; the buffers of a launch take at most %d MiB together", err, maxBufferBytes>>20)
		}
		if err != nil {
			return emu.Arg{}, err
		}
		return emu.Arg{IsBuffer: true, Buffer: b, Adopt: true}, nil
	}
	x, err := parseScalar(v, prm.Type)
	if err != nil {
		return emu.Arg{}, err
	}
	return emu.Arg{Value: x}, nil
}

// parseScalar converts a command-line number (decimal, 0x hex, 0b, 0o, a
// float, or a 0f/0d bit pattern) to the bits of parameter type t.
func parseScalar(s string, t emu.Type) (uint64, error) {
	low := strings.ToLower(s)
	if t.Float() {
		if strings.HasPrefix(low, "0f") && len(low) == 10 || strings.HasPrefix(low, "0d") && len(low) == 18 {
			b, err := strconv.ParseUint(low[2:], 16, 64)
			if err != nil {
				return 0, fmt.Errorf("bad float bit pattern %q", s)
			}
			if low[1] == 'f' && t == emu.TF64 {
				return math.Float64bits(float64(math.Float32frombits(uint32(b)))), nil
			}
			return b, nil
		}
		f, err := strconv.ParseFloat(s, 64)
		if errors.Is(err, strconv.ErrRange) && math.IsInf(f, 0) {
			return 0, fmt.Errorf("%s is out of range for %s", s, t)
		}
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return 0, fmt.Errorf("%q is not a number", s)
		}
		return t.FromFloat(f), nil
	}
	if v, err := strconv.ParseInt(s, 0, 64); err == nil {
		if t.Signed() && t.Bits() < 64 {
			lo, hi := int64(-1)<<uint(t.Bits()-1), int64(1)<<uint(t.Bits()-1)-1
			if v < lo || v > hi {
				return 0, fmt.Errorf("%s does not fit in %s", s, t)
			}
		} else if !t.Signed() && t.Bits() < 64 && (v < -(int64(1)<<uint(t.Bits()-1)) || uint64(v) > typeMask(t) && v >= 0) {
			return 0, fmt.Errorf("%s does not fit in %s", s, t)
		}
		return uint64(v) & typeMask(t), nil
	}
	if v, err := strconv.ParseUint(s, 0, 64); err == nil {
		if v > typeMask(t) {
			return 0, fmt.Errorf("%s does not fit in %s", s, t)
		}
		return v, nil
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<63 {
		return uint64(int64(f)) & typeMask(t), nil
	}
	if _, err := strconv.ParseInt(s, 0, 64); errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Errorf("%s does not fit in %s", s, t)
	}
	return 0, fmt.Errorf("%q is not an integer", s)
}

// typeMask returns the bits of integer type t.
func typeMask(t emu.Type) uint64 {
	if n := t.Bits(); n >= 64 || n == 0 {
		return math.MaxUint64
	}
	return 1<<uint(t.Bits()) - 1
}

// parseAsyncPolicy parses the --async value: "eager", "delayed" or
// "random".
func parseAsyncPolicy(s string) (emu.AsyncPolicy, error) {
	switch s {
	case "eager":
		return emu.AsyncEager, nil
	case "delayed":
		return emu.AsyncDelayed, nil
	case "random":
		return emu.AsyncRandom, nil
	}
	return 0, fmt.Errorf("unknown async policy %q (want eager, delayed or random)", s)
}

// parseTextureArg converts a texture or surface object argument:
//
//	tex:WxH:TYPExC[:file=PATH|fill=BYTE][:point|linear][:clamp|wrap|mirror|border][:coords=normalized][:read=normalized]
//	surf:WxH:TYPExC[:file=PATH|fill=BYTE]
//
// W x H texels (H 1 for one dimension) of C channels of TYPE (f32, u8,
// s8, u16, s16, u32, s32), row after row; the kernel receives the
// object's handle and --out writes the texels back.
func parseTextureArg(v string) (emu.Arg, error) {
	kind, rest, _ := strings.Cut(v, ":")
	spec := strings.Split(rest, ":")
	if len(spec) < 2 {
		return emu.Arg{}, fmt.Errorf("%s: wants WxH:TYPExC[:options]", kind)
	}
	var tex emu.Texture
	ws, hs, ok := strings.Cut(spec[0], "x")
	w, err1 := strconv.Atoi(ws)
	h, err2 := strconv.Atoi(hs)
	if !ok || err1 != nil || err2 != nil {
		return emu.Arg{}, fmt.Errorf("%s: size %q: want WIDTHxHEIGHT", kind, spec[0])
	}
	tex.Width, tex.Height = w, h
	ts, cs, _ := strings.Cut(spec[1], "x")
	tex.Channels = 1
	if cs != "" {
		if tex.Channels, err1 = strconv.Atoi(cs); err1 != nil {
			return emu.Arg{}, fmt.Errorf("%s: channels %q: want 1, 2 or 4", kind, cs)
		}
	}
	if tex.Format, ok = emu.ParseType("." + ts); !ok {
		return emu.Arg{}, fmt.Errorf("%s: texel type %q", kind, ts)
	}
	a := emu.Arg{IsBuffer: true, Texture: &tex}
	if w > 0 && h > 0 && tex.Channels > 0 && tex.Channels <= 4 && w <= 1<<16 && h <= 1<<16 {
		a.Size = w * h * tex.Channels * tex.Format.Size()
	}
	for _, opt := range spec[2:] {
		switch {
		case strings.HasPrefix(opt, "file="):
			b, err := readBounded(opt[5:], nil, maxBufferBytes)
			if err != nil {
				return emu.Arg{}, err
			}
			a.Buffer, a.Adopt, a.Size = b, true, 0
		case strings.HasPrefix(opt, "fill="):
			x, err := strconv.ParseUint(opt[5:], 0, 8)
			if err != nil {
				return emu.Arg{}, fmt.Errorf("fill byte %q must be 0..255", opt[5:])
			}
			a.Fill = byte(x)
		case opt == "point" || opt == "linear":
			tex.Filter = map[string]emu.TexFilter{"point": emu.TexPoint, "linear": emu.TexLinear}[opt]
		case opt == "clamp" || opt == "wrap" || opt == "mirror" || opt == "border":
			m := map[string]emu.TexAddress{"clamp": emu.TexClamp, "wrap": emu.TexWrap, "mirror": emu.TexMirror, "border": emu.TexBorder}[opt]
			tex.Address = [3]emu.TexAddress{m, m, m}
		case opt == "coords=normalized":
			tex.NormalizedCoords = true
		case opt == "read=normalized":
			tex.NormalizedRead = true
		default:
			return emu.Arg{}, fmt.Errorf("%s: unknown option %q (file=PATH, fill=BYTE, point, linear, clamp, wrap, mirror, border, coords=normalized, read=normalized)", kind, opt)
		}
	}
	if kind == "surf" && (tex.Filter != emu.TexPoint || tex.NormalizedCoords || tex.NormalizedRead || tex.Address != [3]emu.TexAddress{}) {
		return emu.Arg{}, fmt.Errorf("surf: takes only file= or fill=; the access instruction says what happens outside")
	}
	return a, nil
}
