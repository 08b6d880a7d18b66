package sfu

import "math"

// mufuSin is MUFU.SIN of r revolutions.
func mufuSin(r uint32) uint32 { return round32(math.Sin(2 * math.Pi * float64(f32(flush(r))))) }

// mufuCos is MUFU.COS of r revolutions.
func mufuCos(r uint32) uint32 { return round32(math.Cos(2 * math.Pi * float64(f32(flush(r))))) }

// mufuTanh is MUFU.TANH.
func mufuTanh(x uint32) uint32 { return round32(math.Tanh(float64(f32(x)))) }

func round32(v float64) uint32 { return canon(math.Float32bits(float32(v))) }
