package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ptxkit/ptxkit/emu"
	"github.com/ptxkit/ptxkit/internal/tensormap"
)

// tmapUsage describes the tmap: form of --arg (docs/tma.md).
const tmapUsage = `tmap:TYPE,dims=D0xD1...,box=B0xB1...,buf=N|file=PATH|size=BYTES[,strides=S1xS2...][,estrides=E0xE1...][,swizzle=none|32B|64B|128B][,interleave=none|16B|32B][,l2=none|64B|128B|256B][,oob=zero|nan]`

// parseTensorMapArg converts the tmap: form of --arg: a tensor map as
// cuTensorMapEncodeTiled builds it, describing the buffer of argument
// buf=N (its address becomes the map's global address at launch), or a
// buffer of its own, read from file=PATH or of size=BYTES zero bytes (for
// kernels that receive only the maps of their tensors; --out writes it as
// the map argument's buffer).
// Dimensions are innermost first; strides are the byte strides of
// dimensions 1 and up, dense by default.
func parseTensorMapArg(spec string, prm emu.Param) (emu.Arg, error) {
	fields := strings.Split(spec, ",")
	typ, err := tensormap.ParseDataType(fields[0])
	if err != nil {
		return emu.Arg{}, err
	}
	m := tensormap.Map{Type: typ}
	buf, seen := -1, map[string]bool{}
	var strides []uint64
	var own emu.Arg
	for _, f := range fields[1:] {
		key, val, ok := strings.Cut(f, "=")
		if !ok || seen[key] {
			return emu.Arg{}, fmt.Errorf("tensor map field %q: want KEY=VALUE, each key once (%s)", f, tmapUsage)
		}
		seen[key] = true
		var err error
		switch key {
		case "file", "size":
			own, err = tmapOwnBuffer(key, val)
		default:
			err = setTmapField(&m, key, val, &buf, &strides)
		}
		if err != nil {
			return emu.Arg{}, fmt.Errorf("tensor map field %s: %v", key, err)
		}
	}
	sources := 0
	for _, k := range []string{"buf", "file", "size"} {
		if seen[k] {
			sources++
		}
	}
	if !seen["dims"] || !seen["box"] || sources != 1 {
		return emu.Arg{}, fmt.Errorf("a tensor map needs dims=, box= and one of buf=, file= or size= (%s)", tmapUsage)
	}
	if err := fillTmapStrides(&m, strides, seen["estrides"]); err != nil {
		return emu.Arg{}, err
	}
	if err := m.Validate(); err != nil {
		return emu.Arg{}, fmt.Errorf("invalid tensor map: %v", err)
	}
	if prm.Size < tensormap.Size {
		return emu.Arg{}, fmt.Errorf("a tensor map takes a %d-byte parameter (.param .align 64 .b8 name[128]), not %d bytes", tensormap.Size, prm.Size)
	}
	if own.IsBuffer {
		own.TensorMap = &m
		return own, nil
	}
	return emu.Arg{TensorMap: &m, MapOf: buf}, nil
}

// tmapOwnBuffer is the buffer of a map's file= or size= field.
func tmapOwnBuffer(key, val string) (emu.Arg, error) {
	if key == "size" {
		n, err := strconv.Atoi(val)
		if err != nil || n <= 0 || n > maxBufferBytes {
			return emu.Arg{}, fmt.Errorf("%q is not a size in bytes (1 to %d)", val, maxBufferBytes)
		}
		return emu.Arg{IsBuffer: true, Size: n}, nil
	}
	if val == "" || val == "-" {
		return emu.Arg{}, fmt.Errorf("file= needs a PATH")
	}
	b, err := readBounded(val, nil, maxBufferBytes)
	if errors.Is(err, errInputTooLarge) {
		return emu.Arg{}, fmt.Errorf("%v; the buffers of a launch take at most %d MiB together", err, maxBufferBytes>>20)
	}
	if err != nil {
		return emu.Arg{}, err
	}
	return emu.Arg{IsBuffer: true, Buffer: b, Adopt: true}, nil
}

// setTmapField sets one KEY=VALUE field of a tmap: argument.
func setTmapField(m *tensormap.Map, key, val string, buf *int, strides *[]uint64) error {
	var err error
	switch key {
	case "dims":
		var d []uint64
		if d, err = tmapList(val, 1<<32); err == nil {
			m.Rank = len(d)
			copy(m.Dims[:], d)
		}
	case "box":
		err = tmapList32(val, 256, m.Box[:])
	case "estrides":
		err = tmapList32(val, 8, m.ElemStrides[:])
	case "strides":
		*strides, err = tmapList(val, 1<<40)
	case "buf":
		var n int
		n, err = strconv.Atoi(val)
		if err == nil && n < 0 {
			err = fmt.Errorf("%d is not an argument index", n)
		}
		*buf = n
	case "swizzle":
		m.Swizzle, err = tmapChoice[tensormap.Swizzle](val, "none", "32B", "64B", "128B")
	case "interleave":
		m.Interleave, err = tmapChoice[tensormap.Interleave](val, "none", "16B", "32B")
	case "l2":
		m.L2, err = tmapChoice[tensormap.L2Promotion](val, "none", "64B", "128B", "256B")
	case "oob":
		m.Fill, err = tmapChoice[tensormap.OOBFill](val, "zero", "nan")
	default:
		err = fmt.Errorf("unknown field (want dims, box, buf, strides, estrides, swizzle, interleave, l2 or oob)")
	}
	return err
}

// fillTmapStrides sets the byte strides (dense when none are given) and
// the element strides (1 when none are given), checking the counts
// against the rank.
func fillTmapStrides(m *tensormap.Map, strides []uint64, estrides bool) error {
	if !estrides {
		for i := 0; i < m.Rank; i++ {
			m.ElemStrides[i] = 1
		}
	}
	for _, l := range []struct {
		name string
		v    []uint32
	}{{"box", m.Box[:]}, {"estrides", m.ElemStrides[:]}} {
		if l.v[m.Rank-1] == 0 || m.Rank < tensormap.MaxRank && l.v[m.Rank] != 0 {
			return fmt.Errorf("%s= needs %d values, one per dimension of dims=", l.name, m.Rank)
		}
	}
	if strides != nil {
		if len(strides) != m.Rank-1 {
			return fmt.Errorf("strides= needs %d values (the byte strides of dimensions 1 to %d)", m.Rank-1, m.Rank-1)
		}
		copy(m.Strides[:], strides)
		return nil
	}
	s := uint64(m.Type.ElemSize())
	for i := 1; i < m.Rank; i++ {
		s *= m.Dims[i-1]
		m.Strides[i-1] = s
	}
	return nil
}

// tmapList parses D0xD1x... (1 to 5 values, each 1..limit).
func tmapList(s string, limit uint64) ([]uint64, error) {
	parts := strings.Split(s, "x")
	if len(parts) > tensormap.MaxRank {
		return nil, fmt.Errorf("%q has %d values; a tensor has at most %d dimensions", s, len(parts), tensormap.MaxRank)
	}
	out := make([]uint64, len(parts))
	for i, p := range parts {
		v, err := strconv.ParseUint(p, 0, 64)
		if err != nil || v == 0 || v > limit {
			return nil, fmt.Errorf("%q: each value must be a number from 1 to %d", s, limit)
		}
		out[i] = v
	}
	return out, nil
}

func tmapList32(s string, limit uint64, dst []uint32) error {
	v, err := tmapList(s, limit)
	for i := range v {
		dst[i] = uint32(v[i])
	}
	return err
}

// tmapChoice returns the index of val among names, case-insensitively.
func tmapChoice[T ~uint8](val string, names ...string) (T, error) {
	for i, n := range names {
		if strings.EqualFold(val, n) {
			return T(i), nil
		}
	}
	return 0, fmt.Errorf("%q is not one of %s", val, strings.Join(names, ", "))
}
