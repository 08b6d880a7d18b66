package fatbin

import (
	"errors"
	"fmt"
)

// decodeLZ4Block decodes one LZ4 block (the raw block format, without the
// frame header) whose decoded size is exactly size bytes. Every length
// and offset is checked against the input and the output, so corrupt
// input is an error, never a panic or an unbounded allocation.
func decodeLZ4Block(src []byte, size int) ([]byte, error) {
	dst := make([]byte, 0, size)
	i := 0
	for i < len(src) {
		token := src[i]
		i++
		lit, err := lz4Length(src, &i, int(token>>4))
		if err != nil {
			return nil, err
		}
		if lit > len(src)-i || lit > size-len(dst) {
			return nil, fmt.Errorf("lz4: literal run of %d bytes at input offset %d overruns the block", lit, i)
		}
		dst = append(dst, src[i:i+lit]...)
		i += lit
		if i == len(src) {
			break // the last sequence has literals only
		}
		if len(src)-i < 2 {
			return nil, fmt.Errorf("lz4: match offset cut short at input offset %d", i)
		}
		off := int(src[i]) | int(src[i+1])<<8
		i += 2
		if off == 0 || off > len(dst) {
			return nil, fmt.Errorf("lz4: match offset %d at input offset %d reaches before the output's start", off, i-2)
		}
		n, err := lz4Length(src, &i, int(token&15))
		if err != nil {
			return nil, err
		}
		n += 4
		if n > size-len(dst) {
			return nil, fmt.Errorf("lz4: match of %d bytes at input offset %d overruns the declared size %d", n, i, size)
		}
		start := len(dst) - off
		for k := range n { // byte by byte: matches may overlap their own output
			dst = append(dst, dst[start+k])
		}
	}
	if len(dst) != size {
		return nil, fmt.Errorf("lz4: block decodes to %d bytes, the entry declares %d", len(dst), size)
	}
	return dst, nil
}

var errLZ4Length = errors.New("lz4: length runs past the end of the block")

// lz4Length reads the extension bytes of a length whose 4-bit field is
// nibble.
func lz4Length(src []byte, i *int, nibble int) (int, error) {
	n := nibble
	if nibble != 15 {
		return n, nil
	}
	for {
		if *i >= len(src) {
			return 0, errLZ4Length
		}
		b := src[*i]
		*i++
		n += int(b)
		if n > maxPayload {
			return 0, fmt.Errorf("lz4: length %d exceeds %d bytes", n, maxPayload)
		}
		if b != 255 {
			return n, nil
		}
	}
}
