package lsp

import "encoding/json"

// The subset of the Language Server Protocol 3.17 types the server reads
// and writes. Names and JSON fields follow the specification.

// Position is a zero-based line and character offset; the character
// counts code units of the negotiated position encoding (UTF-16 unless
// the client chose UTF-8).
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// Range is [Start, End) in a document.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Location is a range in a document.
type Location struct {
	URI   string `json:"uri"`
	Range Range  `json:"range"`
}

type textDocumentIdentifier struct {
	URI string `json:"uri"`
}

type textDocumentItem struct {
	URI        string `json:"uri"`
	LanguageID string `json:"languageId"`
	Version    int    `json:"version"`
	Text       string `json:"text"`
}

type versionedTextDocumentIdentifier struct {
	URI     string `json:"uri"`
	Version int    `json:"version"`
}

type textDocumentPositionParams struct {
	TextDocument textDocumentIdentifier `json:"textDocument"`
	Position     Position               `json:"position"`
}

type initializeParams struct {
	// InitializationOptions are ptxkit's own (initOptions); clients
	// written in Lua send an empty one as [], so it is decoded only when
	// it is an object.
	InitializationOptions json.RawMessage `json:"initializationOptions"`
	Capabilities          struct {
		General struct {
			PositionEncodings []string `json:"positionEncodings"`
		} `json:"general"`
	} `json:"capabilities"`
}

// initOptions: validate for this target and PTX ISA version instead of
// the documents' (ptxkit check --target and --ptx).
type initOptions struct {
	Target string `json:"target"`
	PTX    string `json:"ptx"`
	Strict bool   `json:"strict"` // as check --strict
}

type didOpenParams struct {
	TextDocument textDocumentItem `json:"textDocument"`
}

// contentChange is a TextDocumentContentChangeEvent: with Range, the text
// replacing that range; without, the whole new text.
type contentChange struct {
	Range *Range `json:"range,omitempty"`
	Text  string `json:"text"`
}

type didChangeParams struct {
	TextDocument   versionedTextDocumentIdentifier `json:"textDocument"`
	ContentChanges []contentChange                 `json:"contentChanges"`
}

type didCloseParams struct {
	TextDocument textDocumentIdentifier `json:"textDocument"`
}

type referenceParams struct {
	textDocumentPositionParams
	Context struct {
		IncludeDeclaration bool `json:"includeDeclaration"`
	} `json:"context"`
}

type documentParams struct {
	TextDocument textDocumentIdentifier `json:"textDocument"`
}

type codeActionParams struct {
	TextDocument textDocumentIdentifier `json:"textDocument"`
	Range        Range                  `json:"range"`
}

// Diagnostic severities (LSP "DiagnosticSeverity").
const (
	severityError       = 1
	severityWarning     = 2
	severityInformation = 3
)

// Diagnostic is an LSP diagnostic.
type Diagnostic struct {
	Range              Range                          `json:"range"`
	Severity           int                            `json:"severity"`
	Code               string                         `json:"code,omitempty"`
	Source             string                         `json:"source"`
	Message            string                         `json:"message"`
	RelatedInformation []diagnosticRelatedInformation `json:"relatedInformation,omitempty"`
}

type diagnosticRelatedInformation struct {
	Location Location `json:"location"`
	Message  string   `json:"message"`
}

type publishDiagnosticsParams struct {
	URI         string       `json:"uri"`
	Version     int          `json:"version"`
	Diagnostics []Diagnostic `json:"diagnostics"`
}

type markupContent struct {
	Kind  string `json:"kind"`
	Value string `json:"value"`
}

type hover struct {
	Contents markupContent `json:"contents"`
	Range    *Range        `json:"range,omitempty"`
}

// SymbolKind values used (LSP "SymbolKind").
const (
	symbolKindFunction = 12
	symbolKindVariable = 13
	symbolKindConstant = 14
)

type documentSymbol struct {
	Name           string           `json:"name"`
	Detail         string           `json:"detail,omitempty"`
	Kind           int              `json:"kind"`
	Range          Range            `json:"range"`
	SelectionRange Range            `json:"selectionRange"`
	Children       []documentSymbol `json:"children,omitempty"`
}

// CompletionItemKind values used (LSP "CompletionItemKind").
const (
	completionKindKeyword  = 14
	completionKindVariable = 6
	completionKindEnum     = 20 // a qualifier: one value of a grammar slot
)

type completionItem struct {
	Label         string    `json:"label"`
	Kind          int       `json:"kind"`
	Detail        string    `json:"detail,omitempty"`
	Documentation string    `json:"documentation,omitempty"`
	FilterText    string    `json:"filterText,omitempty"`
	SortText      string    `json:"sortText,omitempty"`
	TextEdit      *textEdit `json:"textEdit,omitempty"`

	pos int // a qualifier's place in its form's syntax, for ordering
}

type completionList struct {
	IsIncomplete bool             `json:"isIncomplete"`
	Items        []completionItem `json:"items"`
}

type textEdit struct {
	Range   Range  `json:"range"`
	NewText string `json:"newText"`
}

type workspaceEdit struct {
	Changes map[string][]textEdit `json:"changes"`
}

type codeAction struct {
	Title       string         `json:"title"`
	Kind        string         `json:"kind"`
	Diagnostics []Diagnostic   `json:"diagnostics,omitempty"`
	IsPreferred bool           `json:"isPreferred,omitempty"`
	Edit        *workspaceEdit `json:"edit,omitempty"`
}

type semanticTokens struct {
	Data []uint32 `json:"data"`
}

type showMessageParams struct {
	Type    int    `json:"type"`
	Message string `json:"message"`
}
