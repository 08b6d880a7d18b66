// Package word packs short strings into machine words, for the lookup
// tables of the resolver and the validator, which compare the names of
// registers, opcodes and qualifiers ("%rd12", "st", ".global") many
// millions of times.
package word

// Pack packs s into a word without a loop: two overlapping 4-byte halves
// (the first and the last four bytes) or, below 4 bytes, the first,
// middle and last byte. With the length it determines a string of up to 8
// bytes; of a longer one it is a sample.
func Pack(s string) uint64 {
	n := len(s)
	if n >= 4 {
		t := s[n-4:]
		lo := uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
		hi := uint32(t[0]) | uint32(t[1])<<8 | uint32(t[2])<<16 | uint32(t[3])<<24
		return uint64(lo) | uint64(hi)<<32
	}
	if n > 0 {
		return uint64(s[0]) | uint64(s[n/2])<<8 | uint64(s[n-1])<<16
	}
	return 0
}

// Mix scrambles a packed word (with its length or other key material
// added in) so that every bit of it affects the high bits, which the
// tables take their index from.
func Mix(x uint64) uint64 { return (x ^ x>>29) * 0xbf58476d1ce4e5b9 }
