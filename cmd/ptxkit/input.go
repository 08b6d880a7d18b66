package main

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// errInputTooLarge reports a FILE or file: argument over its size limit.
var errInputTooLarge = errors.New("larger than the limit")

// readChunk is the unit in which inputs of unknown size (standard input,
// pipes) are read: memory stays within the limit plus one chunk until the
// input is known to fit.
const readChunk = 1 << 20

// readBounded reads the file name, or stdin for "-", failing instead of
// reading more than limit bytes. Sources that never end are refused before
// any byte is read: a directory, or a device such as /dev/zero or
// /dev/urandom. A regular file over the limit is refused from its size; a
// pipe or standard input is read in chunks and refused once it passes the
// limit, so that memory never exceeds the limit by more than a chunk.
func readBounded(name string, stdin io.Reader, limit int64) ([]byte, error) {
	if name == "-" {
		return readChunked(displayName(name), stdin, limit)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	switch mode := st.Mode(); {
	case mode.IsDir():
		return nil, fmt.Errorf("%s is a directory", name)
	case mode&os.ModeDevice != 0:
		return nil, fmt.Errorf("%s is a device, not a file: its input may never end (- reads standard input)", name)
	case mode.IsRegular():
		if st.Size() > limit {
			return nil, fmt.Errorf("%s: %w (%d bytes)", name, errInputTooLarge, limit)
		}
		return readSized(name, f, st.Size(), limit)
	}
	return readChunked(name, f, limit)
}

// readSized reads a regular file of size bytes in one allocation; should
// the file have grown since, the rest is read within the limit.
func readSized(name string, r io.Reader, size, limit int64) ([]byte, error) {
	b := make([]byte, size)
	n, err := io.ReadFull(r, b)
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		return b[:n], nil // the file shrank
	}
	if err != nil {
		return nil, err
	}
	rest, err := readChunked(name, r, limit-size)
	if err != nil || len(rest) == 0 {
		return b, err
	}
	return append(b, rest...), nil
}

// readChunked reads r to its end in readChunk pieces, failing once more
// than limit bytes arrive. The pieces are joined at the end: the peak is
// twice the input plus a chunk.
func readChunked(name string, r io.Reader, limit int64) ([]byte, error) {
	var chunks [][]byte
	total := int64(0)
	for {
		buf := make([]byte, min(readChunk, limit+1-total))
		n, err := io.ReadFull(r, buf)
		total += int64(n)
		if total > limit {
			return nil, fmt.Errorf("%s: %w (%d bytes)", name, errInputTooLarge, limit)
		}
		chunks = append(chunks, buf[:n])
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if len(chunks) == 1 {
		return chunks[0], nil
	}
	out := make([]byte, 0, total)
	for _, c := range chunks {
		out = append(out, c...)
	}
	return out, nil
}
