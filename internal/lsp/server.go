// Package lsp is a Language Server Protocol 3.17 server for PTX
// (`ptxkit lsp`), built on the packages of the command line: the parser
// and resolver for positions and names, the validator for diagnostics and
// fixes, the printer for formatting, the isa tables for completion and
// `ptxkit explain`'s text for hover.
//
// The server speaks the base protocol (Content-Length framed JSON-RPC 2.0)
// over any reader and writer. It handles one message at a time on one
// goroutine, in arrival order; a second goroutine only reads. Documents
// are re-analysed when they change, but only once no further message is
// waiting or before the next request is answered, so a burst of edits
// costs one analysis and one publication (see Serve).
package lsp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/ptxkit/ptxkit/check"
)

// Options configures a server.
type Options struct {
	// Explain returns `ptxkit explain`'s text for one instruction checked
	// against a target and PTX ISA version (either may be ""). Hover on an
	// instruction shows it. When nil, hover shows the tables' summary.
	Explain func(instruction, target, version string) string
}

// ErrExitWithoutShutdown is returned by Serve when the client sent exit
// before shutdown (LSP 3.17 "exit": the server exits with status 1).
var ErrExitWithoutShutdown = errors.New("exit notification before shutdown")

// Server is one language server session.
type Server struct {
	opts Options
	out  *bufio.Writer

	enc         encoding
	cfg         check.Config // --target and --ptx from the initialization options
	initialized bool         // initialize was answered
	shutdown    bool         // shutdown was answered
	exited      bool

	docs map[string]*document
}

// document is an open text document.
type document struct {
	uri       string
	version   int
	text      string
	analysis  *analysis // nil when text changed since the last analysis
	published bool      // the diagnostics of text were sent
}

// Serve runs a session reading requests from in and writing to out until
// the client sends exit or in ends. It returns nil after shutdown and
// exit, ErrExitWithoutShutdown for an exit without shutdown, and the read
// error when the stream breaks off.
func Serve(in io.Reader, out io.Writer, opts Options) error {
	s := &Server{opts: opts, out: bufio.NewWriterSize(out, 64<<10), docs: map[string]*document{}}
	return s.serve(in)
}

// item is one message read, or the error that stopped or spoiled it.
type item struct {
	body []byte
	err  error
}

func (s *Server) serve(in io.Reader) error {
	items := make(chan item, 16)
	done := make(chan struct{})
	defer close(done)
	go readAll(newReader(in), items, done)
	for {
		var it item
		select {
		case it = <-items:
		default:
			// Nothing waits: analyse and publish what changed, then block.
			s.publishChanged()
			it = <-items
		}
		var fe errFraming
		switch {
		case errors.As(it.err, &fe):
			s.send(errorResponse{JSONRPC: "2.0", ID: json.RawMessage("null"), Error: errorf(codeParseError, "%s", fe.msg)})
		case it.err != nil:
			s.out.Flush()
			if errors.Is(it.err, io.EOF) {
				return nil
			}
			return it.err
		default:
			s.handle(it.body)
		}
		if s.exited {
			s.out.Flush()
			if !s.shutdown {
				return ErrExitWithoutShutdown
			}
			return nil
		}
	}
}

// readAll reads messages into items until the stream ends or done closes.
func readAll(r *reader, items chan<- item, done <-chan struct{}) {
	for {
		body, err := r.read()
		select {
		case items <- item{body, err}:
		case <-done:
			return
		}
		var fe errFraming
		if err != nil && !errors.As(err, &fe) {
			return
		}
	}
}

// send writes one message and flushes it.
func (s *Server) send(v any) {
	if err := writeMessage(s.out, v); err == nil {
		s.out.Flush()
	}
}

// handle decodes and dispatches one message.
func (s *Server) handle(body []byte) {
	var m message
	if err := json.Unmarshal(body, &m); err != nil {
		s.send(errorResponse{JSONRPC: "2.0", ID: json.RawMessage("null"), Error: errorf(codeParseError, "message is not JSON-RPC: %v", err)})
		return
	}
	id := m.ID
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	if m.JSONRPC != "2.0" || (m.Method == "" && m.Result == nil && m.Error == nil) {
		s.send(errorResponse{JSONRPC: "2.0", ID: id, Error: errorf(codeInvalidRequest, "not a JSON-RPC 2.0 request")})
		return
	}
	if m.Method == "" {
		return // a response to a request of ours; the server sends none
	}
	if !m.isRequest() {
		s.notification(m.Method, m.Params)
		return
	}
	// Diagnostics of changed documents go out before the answer to a
	// request, so a client that sends edits and a request without a pause
	// still sees them, once per burst.
	s.publishChanged()
	result, rerr := s.safeRequest(m.Method, m.Params)
	if rerr != nil {
		s.send(errorResponse{JSONRPC: "2.0", ID: id, Error: rerr})
		return
	}
	s.send(response{JSONRPC: "2.0", ID: id, Result: result})
}

// requestHandlers maps each request method to its handler.
var requestHandlers map[string]func(*Server, json.RawMessage) (any, *rpcError)

func init() {
	requestHandlers = map[string]func(*Server, json.RawMessage) (any, *rpcError){
		"initialize":                        (*Server).initialize,
		"shutdown":                          (*Server).shutdownRequest,
		"textDocument/hover":                (*Server).hover,
		"textDocument/definition":           (*Server).definition,
		"textDocument/references":           (*Server).references,
		"textDocument/documentSymbol":       (*Server).documentSymbols,
		"textDocument/completion":           (*Server).completion,
		"textDocument/formatting":           (*Server).formatting,
		"textDocument/codeAction":           (*Server).codeActions,
		"textDocument/semanticTokens/full":  (*Server).semanticTokensFull,
		"textDocument/documentHighlight":    (*Server).documentHighlight,
		"textDocument/semanticTokens/range": (*Server).semanticTokensRange,
	}
}

// safeRequest is request, with a panic turned into an internal error
// response so that one failing request does not end the session.
func (s *Server) safeRequest(method string, params json.RawMessage) (result any, rerr *rpcError) {
	defer func() {
		if r := recover(); r != nil {
			result, rerr = nil, errorf(codeInternalError, "%s failed: %v", method, r)
		}
	}()
	return s.request(method, params)
}

func (s *Server) request(method string, params json.RawMessage) (any, *rpcError) {
	h, ok := requestHandlers[method]
	switch {
	case !ok:
		return nil, errorf(codeMethodNotFound, "method %q is not supported", method)
	case s.shutdown:
		return nil, errorf(codeInvalidRequest, "%s after shutdown", method)
	case !s.initialized && method != "initialize":
		return nil, errorf(codeServerNotInitialized, "%s before initialize", method)
	}
	return h(s, params)
}

func (s *Server) notification(method string, params json.RawMessage) {
	if method == "exit" {
		s.exited = true
		return
	}
	if !s.initialized || s.shutdown {
		return // LSP 3.17: notifications before initialize are dropped
	}
	var err *rpcError
	switch method {
	case "textDocument/didOpen":
		err = s.didOpen(params)
	case "textDocument/didChange":
		err = s.didChange(params)
	case "textDocument/didClose":
		err = s.didClose(params)
	}
	if err != nil {
		// A notification has no response: the client hears of it as a
		// message (LSP 3.17 "window/showMessage", type Error).
		s.send(notification{JSONRPC: "2.0", Method: "window/showMessage",
			Params: showMessageParams{Type: 1, Message: "ptxkit lsp: " + method + ": " + err.Message}})
	}
}

// decode unmarshals params into v.
func decode(params json.RawMessage, v any) *rpcError {
	if len(params) == 0 {
		return errorf(codeInvalidParams, "missing params")
	}
	if err := json.Unmarshal(params, v); err != nil {
		return errorf(codeInvalidParams, "bad params: %v", err)
	}
	return nil
}

func (s *Server) initialize(params json.RawMessage) (any, *rpcError) {
	if s.initialized {
		return nil, errorf(codeInvalidRequest, "initialize sent twice")
	}
	var p initializeParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	var opts initOptions
	if o := bytes.TrimSpace(p.InitializationOptions); len(o) > 0 && o[0] == '{' {
		if err := json.Unmarshal(o, &opts); err != nil {
			return nil, errorf(codeInvalidParams, "initializationOptions: %v", err)
		}
	}
	s.cfg = check.Config{Target: opts.Target, PTX: opts.PTX, Strict: opts.Strict}
	if err := s.cfg.Validate(); err != nil {
		return nil, errorf(codeInvalidParams, "initializationOptions: %v", err)
	}
	for _, e := range p.Capabilities.General.PositionEncodings {
		if e == "utf-8" {
			s.enc = utf8Enc
			break
		}
	}
	s.initialized = true
	return map[string]any{
		"capabilities": map[string]any{
			"positionEncoding": s.enc.String(),
			"textDocumentSync": map[string]any{
				"openClose": true,
				"change":    2, // incremental
			},
			"hoverProvider":              true,
			"definitionProvider":         true,
			"referencesProvider":         true,
			"documentHighlightProvider":  true,
			"documentSymbolProvider":     true,
			"documentFormattingProvider": true,
			"codeActionProvider":         map[string]any{"codeActionKinds": []string{"quickfix"}},
			"completionProvider":         map[string]any{"triggerCharacters": []string{".", "%"}},
			"semanticTokensProvider": map[string]any{
				"legend": map[string]any{"tokenTypes": semanticTokenTypes, "tokenModifiers": semanticTokenModifiers},
				"full":   true,
				"range":  true,
			},
		},
		"serverInfo": map[string]string{"name": "ptxkit"},
	}, nil
}

func (s *Server) shutdownRequest(json.RawMessage) (any, *rpcError) {
	s.shutdown = true
	return nil, nil
}

func (s *Server) didOpen(params json.RawMessage) *rpcError {
	var p didOpenParams
	if err := decode(params, &p); err != nil {
		return err
	}
	s.docs[p.TextDocument.URI] = &document{uri: p.TextDocument.URI, version: p.TextDocument.Version, text: p.TextDocument.Text}
	return nil
}

// didChange applies the changes in order (LSP 3.17 "DidChangeTextDocument":
// each range refers to the text after the previous change). A change
// outside the document leaves the document as it was before the
// notification.
func (s *Server) didChange(params json.RawMessage) *rpcError {
	var p didChangeParams
	if err := decode(params, &p); err != nil {
		return err
	}
	d := s.docs[p.TextDocument.URI]
	if d == nil {
		return errorf(codeInvalidParams, "document %s is not open", p.TextDocument.URI)
	}
	txt := d.text
	scanned := 0
	for i, c := range p.ContentChanges {
		if c.Range == nil {
			txt = c.Text
			continue
		}
		// Each range change scans the text once: bound the total, so that
		// many small changes to a large document cannot stall the server.
		if scanned += len(txt); scanned > maxChangeScan {
			return errorf(codeInvalidParams, "too many range changes (%d) for a document of %d bytes; send the whole text", len(p.ContentChanges), len(txt))
		}
		var ok bool
		if txt, ok = newText(txt).edit(*c.Range, c.Text, s.enc); !ok {
			return errorf(codeInvalidParams, "change %d: range %v is outside the document", i, *c.Range)
		}
		if len(txt) > MaxMessageBytes {
			return errorf(codeInvalidParams, "document would exceed %d bytes", MaxMessageBytes)
		}
	}
	d.text, d.version, d.analysis, d.published = txt, p.TextDocument.Version, nil, false
	return nil
}

// maxChangeScan bounds the bytes of text that the range changes of one
// didChange may scan (a fraction of a second).
const maxChangeScan = 256 << 20

func (s *Server) didClose(params json.RawMessage) *rpcError {
	var p didCloseParams
	if err := decode(params, &p); err != nil {
		return err
	}
	if _, ok := s.docs[p.TextDocument.URI]; !ok {
		return errorf(codeInvalidParams, "document %s is not open", p.TextDocument.URI)
	}
	delete(s.docs, p.TextDocument.URI)
	// Clear the document's diagnostics (LSP 3.17 "PublishDiagnostics").
	s.send(notification{JSONRPC: "2.0", Method: "textDocument/publishDiagnostics",
		Params: publishDiagnosticsParams{URI: p.TextDocument.URI, Diagnostics: []Diagnostic{}}})
	return nil
}

// analysisOf returns the analysis of d's current text, computing it when
// needed.
func (s *Server) analysisOf(d *document) *analysis {
	if d.analysis == nil {
		d.analysis = analyze(d.uri, d.text, s.cfg)
	}
	return d.analysis
}

// publishChanged publishes the diagnostics of every document whose text
// changed since its last publication, in URI order.
func (s *Server) publishChanged() {
	var uris []string
	for uri, d := range s.docs {
		if !d.published {
			uris = append(uris, uri)
		}
	}
	sort.Strings(uris)
	for _, uri := range uris {
		d := s.docs[uri]
		a := s.analysisOf(d)
		s.send(notification{JSONRPC: "2.0", Method: "textDocument/publishDiagnostics",
			Params: publishDiagnosticsParams{URI: uri, Version: d.version, Diagnostics: s.lspDiagnostics(uri, a)}})
		d.published = true
	}
}

// docAt finds the document and the byte offset of a position in it.
// positionRequest decodes the parameters of a request about a position
// in a document and returns them with the document's analysis and the
// position's byte offset.
func (s *Server) positionRequest(params json.RawMessage) (textDocumentPositionParams, *analysis, int, *rpcError) {
	var p textDocumentPositionParams
	if err := decode(params, &p); err != nil {
		return p, nil, 0, err
	}
	_, a, o, err := s.docAt(p)
	return p, a, o, err
}

func (s *Server) docAt(p textDocumentPositionParams) (*document, *analysis, int, *rpcError) {
	d := s.docs[p.TextDocument.URI]
	if d == nil {
		return nil, nil, 0, errorf(codeInvalidParams, "document %s is not open", p.TextDocument.URI)
	}
	a := s.analysisOf(d)
	o, ok := a.text.offset(p.Position, s.enc)
	if !ok {
		return nil, nil, 0, errorf(codeInvalidParams, "position %d:%d is outside the document (%d lines)",
			p.Position.Line, p.Position.Character, len(a.text.lines))
	}
	return d, a, o, nil
}

// doc finds an open document.
func (s *Server) doc(uri string) (*document, *analysis, *rpcError) {
	d := s.docs[uri]
	if d == nil {
		return nil, nil, errorf(codeInvalidParams, "document %s is not open", uri)
	}
	return d, s.analysisOf(d), nil
}

func (r Range) String() string {
	return fmt.Sprintf("%d:%d-%d:%d", r.Start.Line, r.Start.Character, r.End.Line, r.End.Character)
}
