package cudrv

import (
	"fmt"
	"sort"
	"strings"
)

// GPU describes the device the driver presents: its name, compute
// capability, memory and the attributes cuDeviceGetAttribute returns.
// Kernels always run on the emulator; the description is what programs
// see when they size their launches.
type GPU struct {
	Flag      string // the --device name: sm_90
	Name      string
	Major     int
	Minor     int
	TotalMem  uint64
	UUID      [16]byte
	attrs     map[int]int64
	SMs       int
	SmemOptin int
}

// Attr returns attribute a (a CUdevice_attribute) and whether the driver
// knows it.
func (g *GPU) Attr(a int) (int64, bool) {
	v, ok := g.attrs[a]
	return v, ok
}

// CUdevice_attribute numbers used by name below.
const (
	attrMaxThreadsPerBlock = 1
	attrMaxSmemPerBlock    = 8
	attrWarpSize           = 10
	attrClockRate          = 13
	attrSMCount            = 16
	attrPCIBus             = 33
	attrPCIDevice          = 34
	attrL2Size             = 38
	attrMaxThreadsPerSM    = 39
	attrPCIDomain          = 50
	attrCCMajor            = 75
	attrCCMinor            = 76
	attrSmemPerSM          = 81
	attrSmemOptin          = 97
	attrMaxBlocksPerSM     = 106
	attrClusterLaunch      = 120
	attrTensorMap          = 127
)

// commonAttrs are the attributes the supported GPUs share (Ampere,
// Hopper and Blackwell data center parts), by CUdevice_attribute number.
var commonAttrs = map[int]int64{
	1: 1024, 2: 1024, 3: 1024, 4: 64, 5: 2147483647, 6: 65535, 7: 65535, 8: 49152, 9: 65536,
	10: 32, 11: 2147483647, 12: 65536, 14: 512, 15: 1, 17: 0, 18: 0, 19: 1, 20: 0,
	21: 131072, 22: 131072, 23: 65536, 24: 16384, 25: 16384, 26: 16384, 27: 32768, 28: 32768,
	29: 2048, 30: 512, 31: 1, 32: 1, 33: 1, 34: 0, 35: 0, 39: 2048, 40: 2, 41: 1,
	42: 32768, 43: 2048, 44: 1, 45: 32768, 46: 32768, 47: 8192, 48: 8192, 49: 32768, 50: 0,
	51: 32, 52: 32768, 53: 32768, 54: 2046, 55: 32768, 56: 131072, 57: 65536, 58: 16384,
	59: 16384, 60: 16384, 61: 32768, 62: 2048, 63: 32768, 64: 32768, 65: 2048, 66: 32768,
	67: 32768, 68: 2046, 69: 268435456, 70: 131072, 71: 65000, 72: 2097120, 73: 32768,
	74: 32768, 77: 32768, 78: 1, 79: 1, 80: 1, 82: 65536, 83: 1, 84: 0, 85: 0, 86: 0,
	87: 2, 88: 0, 89: 1, 90: 1, 91: 0, 92: 0, 93: 0, 94: 0, 95: 1, 96: 0, 98: 0, 99: 1,
	100: 0, 101: 0, 102: 1, 103: 1, 104: 0, 105: 0, 106: 32, 107: 1, 108: 0, 109: 134213632,
	110: 0, 111: 1024, 112: 1, 113: 0, 114: 1, 115: 1, 116: 0, 117: 0, 118: 0, 119: 1,
	121: 1, 122: 1, 123: 1, 124: 0, 125: 0, 126: 1, 128: 0, 129: 0, 130: 0, 131: -1,
	132: 0, 133: 0, 134: -1, 135: 0,
}

// gpus are the devices --device selects.
var gpus = map[string]func() *GPU{
	"sm_80": func() *GPU {
		return newGPU("sm_80", "NVIDIA A100-SXM4-80GB", 8, 0, 85899345920, map[int]int64{
			attrClockRate: 1410000, attrSMCount: 108, 36: 1593000, 37: 5120, attrL2Size: 41943040,
			attrSmemPerSM: 167936, attrSmemOptin: 166912, attrClusterLaunch: 0, attrTensorMap: 0,
			108: 31457280, 126: 1,
		})
	},
	"sm_90": func() *GPU {
		return newGPU("sm_90", "NVIDIA H100 80GB HBM3", 9, 0, 85029158912, map[int]int64{
			attrClockRate: 1980000, attrSMCount: 132, 36: 2619000, 37: 5120, attrL2Size: 52428800,
			attrSmemPerSM: 233472, attrSmemOptin: 232448, attrClusterLaunch: 1, attrTensorMap: 1,
			108: 82837504, 126: 4,
		})
	},
	"sm_100a": func() *GPU {
		return newGPU("sm_100a", "NVIDIA B200", 10, 0, 191514411008, map[int]int64{
			attrClockRate: 1965000, attrSMCount: 148, 36: 3996000, 37: 8192, attrL2Size: 132120576,
			attrSmemPerSM: 233472, attrSmemOptin: 232448, attrClusterLaunch: 1, attrTensorMap: 1,
			108: 82837504, 126: 4,
		})
	},
}

func newGPU(flag, name string, major, minor int, mem uint64, own map[int]int64) *GPU {
	g := &GPU{Flag: flag, Name: name, Major: major, Minor: minor, TotalMem: mem, attrs: map[int]int64{}}
	for k, v := range commonAttrs {
		g.attrs[k] = v
	}
	for k, v := range own {
		g.attrs[k] = v
	}
	g.attrs[attrCCMajor], g.attrs[attrCCMinor] = int64(major), int64(minor)
	g.SMs, g.SmemOptin = int(g.attrs[attrSMCount]), int(g.attrs[attrSmemOptin])
	// A fixed UUID per model, marked as not a real board's (version nibble 0).
	copy(g.UUID[:], fmt.Sprintf("ptxkit-%-9s", flag))
	return g
}

// SM returns the compute capability as one number: 90 for 9.0.
func (g *GPU) SM() int { return g.Major*10 + g.Minor }

// LookupGPU returns the GPU a --device value names: sm_80, sm_90 (the
// default, an H100 SXM) or sm_100a.
func LookupGPU(name string) (*GPU, error) {
	if name == "" {
		name = "sm_90"
	}
	if name == "sm_100" {
		name = "sm_100a"
	}
	mk, ok := gpus[name]
	if !ok {
		return nil, fmt.Errorf("unknown device %q (want %s)", name, strings.Join(GPUNames(), ", "))
	}
	return mk(), nil
}

// GPUNames lists the --device values.
func GPUNames() []string {
	var out []string
	for k := range gpus {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
