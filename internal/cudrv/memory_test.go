package cudrv

import "testing"

// TestMemset2D sets rows of 8-, 16- and 32-bit elements inside a pitched
// allocation and checks every byte: the set bytes hold the value's
// little-endian bytes, those between rows are untouched.
func TestMemset2D(t *testing.T) {
	d, _ := newTestDriver(t)
	const pitch, rows = 64, 3
	for _, size := range []int{1, 2, 4} {
		a, r := d.MemAlloc(pitch * rows)
		if r != Success {
			t.Fatal(r)
		}
		width := uint64(37 / size) // an odd number of elements
		if r := d.Memset(a, 0xa1b2c3d4, size, width, rows, pitch); r != Success {
			t.Fatal(r)
		}
		b, _ := d.Device(a, pitch*rows)
		for i, v := range b {
			want := byte(0)
			if col := uint64(i % pitch); col < width*uint64(size) {
				want = byte(uint32(0xa1b2c3d4) >> (8 * (int(col) % size)))
			}
			if v != want {
				t.Fatalf("element size %d: byte %d (row %d) is %#x, want %#x", size, i, i/pitch, v, want)
			}
		}
	}
}
