package lsp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// JSON-RPC 2.0 error codes (JSON-RPC 2.0 §5.1) and the LSP's own
// (LSP 3.17 "ErrorCodes").
const (
	codeParseError           = -32700
	codeInvalidRequest       = -32600
	codeMethodNotFound       = -32601
	codeInvalidParams        = -32602
	codeInternalError        = -32603
	codeServerNotInitialized = -32002
	codeRequestFailed        = -32803
)

// Limits on what one message may hold, so that a hostile or broken client
// cannot make the server read without end or keep unbounded memory.
const (
	// MaxMessageBytes bounds the body of one message. A didOpen carries a
	// whole document; ptxkit check accepts inputs up to 256 MiB, an editor
	// buffer is far smaller.
	MaxMessageBytes = 64 << 20
	maxHeaderLine   = 4096 // bytes in one header line
	maxHeaderLines  = 32   // header lines before the blank line
)

// message is any JSON-RPC 2.0 message: a request (ID and Method), a
// notification (Method only) or a response (ID and Result or Error).
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// isRequest reports whether m expects a response.
func (m *message) isRequest() bool { return len(m.ID) > 0 && string(m.ID) != "null" && m.Method != "" }

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("%s (code %d)", e.Message, e.Code) }

func errorf(code int, format string, args ...any) *rpcError {
	return &rpcError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// response is an outgoing response. Result is always written ("null" for
// none) on success, as JSON-RPC requires.
type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result"`
	Error   *rpcError       `json:"error,omitempty"`
}

// errorResponse is an outgoing error, without a result member.
type errorResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   *rpcError       `json:"error"`
}

// notification is an outgoing notification.
type notification struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

// errFraming is a message whose header or body could not be read as one;
// the reader has skipped it and the stream is usable again.
type errFraming struct{ msg string }

func (e errFraming) Error() string { return e.msg }

// reader reads base-protocol messages ("Content-Length: N\r\n\r\n" and N
// bytes of JSON; LSP 3.17 "Base Protocol").
type reader struct {
	r   *bufio.Reader
	max int
}

func newReader(r io.Reader) *reader {
	return &reader{r: bufio.NewReaderSize(r, 64<<10), max: MaxMessageBytes}
}

// read returns the next message body. An errFraming error means the
// message was malformed and skipped; any other error (io.EOF included)
// ends the stream.
func (r *reader) read() ([]byte, error) {
	length, problem, err := r.header()
	if err != nil {
		return nil, err
	}
	if problem == "" && length > r.max {
		problem = fmt.Sprintf("message of %d bytes exceeds the limit of %d bytes", length, r.max)
	}
	if problem != "" {
		// Skip the body when its length is known, to stay in step.
		if _, err := io.CopyN(io.Discard, r.r, int64(max(length, 0))); err != nil {
			return nil, unexpectedEOF(err)
		}
		return nil, errFraming{problem}
	}
	// The buffer grows with the bytes that arrive, not with the length
	// the header claims.
	var body bytes.Buffer
	body.Grow(min(length, 1<<20))
	if _, err := io.CopyN(&body, r.r, int64(length)); err != nil {
		return nil, unexpectedEOF(err)
	}
	return body.Bytes(), nil
}

// header reads header lines up to the blank line and returns the
// Content-Length (-1 when there is none or it is malformed) and what is
// wrong with the header, if anything.
func (r *reader) header() (length int, problem string, err error) {
	length = -1
	for n := 0; ; n++ {
		line, overlong, err := r.line()
		if err != nil {
			if n > 0 || !errors.Is(err, io.EOF) {
				return 0, "", unexpectedEOF(err)
			}
			return 0, "", err
		}
		if line == "" {
			break
		}
		if n == maxHeaderLines {
			problem = fmt.Sprintf("more than %d header lines", maxHeaderLines)
		}
		if overlong {
			problem = fmt.Sprintf("header line longer than %d bytes", maxHeaderLine)
			continue
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			problem = fmt.Sprintf("header line %q has no ':'", clip(line))
			continue
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			v, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil || v < 0 {
				problem = fmt.Sprintf("bad Content-Length %q", clip(strings.TrimSpace(value)))
				length = -1
				continue
			}
			length = v
		}
	}
	if problem == "" && length < 0 {
		problem = "message without Content-Length header"
	}
	return length, problem, nil
}

// line reads one header line without its "\r\n" (or "\n"). A line
// longer than maxHeaderLine is consumed whole, kept only in part, and
// reported as overlong.
func (r *reader) line() (s string, overlong bool, err error) {
	var b []byte
	for {
		chunk, err := r.r.ReadSlice('\n')
		if len(b)+len(chunk) <= maxHeaderLine {
			b = append(b, chunk...)
		} else if len(b) < maxHeaderLine {
			b = append(b, chunk[:maxHeaderLine-len(b)]...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			return "", false, err
		}
		return strings.TrimRight(string(b), "\r\n"), len(b) >= maxHeaderLine, nil
	}
}

func unexpectedEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// clip shortens s for an error message.
func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}

// writeMessage writes v as one base-protocol message.
func writeMessage(w io.Writer, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(w, "Content-Length: %d\r\n\r\n", len(body)); err != nil {
		return err
	}
	_, err = w.Write(body)
	return err
}
