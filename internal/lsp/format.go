package lsp

import (
	"encoding/json"

	"github.com/ptxkit/ptxkit/ptx/parser"
	"github.com/ptxkit/ptxkit/ptx/printer"
)

// formatting returns `ptxkit fmt`'s canonical form of the document as one
// edit replacing the whole text, no edit when it is already canonical,
// and an error when the document has syntax errors (fmt leaves such files
// alone too).
func (s *Server) formatting(params json.RawMessage) (any, *rpcError) {
	var p documentParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	d, a, err := s.doc(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	m, errs := parser.ParseStringMode(d.uri, d.text, parser.ParseComments)
	if errs.HasErrors() {
		return nil, errorf(codeRequestFailed, "not formatted: %s", errs.Err())
	}
	out := string(printer.Bytes(m))
	if out == d.text {
		return []textEdit{}, nil
	}
	return []textEdit{{Range: a.text.rangeOf(0, len(d.text), s.enc), NewText: out}}, nil
}
