package diag

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"
)

// This file writes diagnostics as a SARIF 2.1.0 log (OASIS Static Analysis
// Results Interchange Format), the format GitHub code scanning uploads.
// Only the subset ptxkit needs is modelled: one run, its tool and rules,
// and results with one physical location each.

const (
	sarifVersion = "2.1.0"
	sarifSchema  = "https://json.schemastore.org/sarif-2.1.0.json"
	toolName     = "ptxkit"
	toolURI      = "https://github.com/ptxkit/ptxkit"
)

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool       sarifTool     `json:"tool"`
	Results    []sarifResult `json:"results"` // never omitted: GitHub wants an array
	ColumnKind string        `json:"columnKind"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string        `json:"id"`
	ShortDescription     sarifMessage  `json:"shortDescription"`
	Help                 *sarifMessage `json:"help,omitempty"`
	DefaultConfiguration sarifConfig   `json:"defaultConfiguration"`
}

type sarifConfig struct {
	Level string `json:"level"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifMessage      `json:"message"`
	Locations           []sarifLocation   `json:"locations"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type sarifRegion struct {
	StartLine   int32 `json:"startLine"`
	StartColumn int32 `json:"startColumn,omitempty"`
	EndLine     int32 `json:"endLine,omitempty"`
	EndColumn   int32 `json:"endColumn,omitempty"`
}

// SARIFOptions tunes WriteSARIFWith.
type SARIFOptions struct {
	// ToolVersion is reported as the driver's version when not "".
	ToolVersion string
	// Source returns the text of a file, or nil. With it, byte columns
	// are converted to the Unicode code point columns SARIF requires;
	// without it they are written as they are (the same for ASCII text,
	// which PTX almost always is).
	Source func(file string) []byte
}

// WriteSARIF writes l as a SARIF 2.1.0 log with one run.
func WriteSARIF(w io.Writer, l List) error { return WriteSARIFWith(w, l, SARIFOptions{}) }

// WriteSARIFWith writes l as a SARIF 2.1.0 log with one run, suitable for
// GitHub code scanning: stable rule ids, relative paths under %SRCROOT%,
// a results array even when empty, and a partial fingerprint per result.
func WriteSARIFWith(w io.Writer, l List, opt SARIFOptions) error {
	run := sarifRun{
		Tool:       sarifTool{Driver: sarifDriver{Name: toolName, Version: opt.ToolVersion, InformationURI: toolURI, Rules: []sarifRule{}}},
		Results:    []sarifResult{},
		ColumnKind: "unicodeCodePoints",
	}
	index := map[string]int{}
	for _, r := range sortedRules(l) {
		index[r.ID] = len(run.Tool.Driver.Rules)
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, r)
	}
	for _, d := range l {
		run.Results = append(run.Results, sarifResultOf(d, index[ruleID(d)], opt))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(sarifLog{Schema: sarifSchema, Version: sarifVersion, Runs: []sarifRun{run}})
}

func ruleID(d Diagnostic) string {
	if d.Rule == "" {
		return "ptxkit"
	}
	return d.Rule
}

// sortedRules returns one reporting descriptor per rule id in l, sorted by
// id so that the output is deterministic.
func sortedRules(l List) []sarifRule {
	seen := map[string]*sarifRule{}
	for _, d := range l {
		id := ruleID(d)
		r, ok := seen[id]
		if !ok {
			desc := strings.ReplaceAll(id, "-", " ")
			if d.Spec != "" {
				desc += " (" + d.Spec + ")"
			}
			r = &sarifRule{ID: id, ShortDescription: sarifMessage{Text: desc}, DefaultConfiguration: sarifConfig{Level: sarifLevel(d.Severity)}}
			seen[id] = r
		}
		if r.Help == nil && d.Fix != "" {
			r.Help = &sarifMessage{Text: "Fix: " + d.Fix}
		}
	}
	rules := make([]sarifRule, 0, len(seen))
	for _, r := range seen {
		rules = append(rules, *r)
	}
	sort.Slice(rules, func(i, j int) bool { return rules[i].ID < rules[j].ID })
	return rules
}

func sarifLevel(s Severity) string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	}
	return "note"
}

func sarifResultOf(d Diagnostic, ruleIndex int, opt SARIFOptions) sarifResult {
	text := d.Message
	if d.Fix != "" {
		text += " (fix: " + d.Fix + ")"
	}
	if d.Spec != "" {
		text += " [" + d.Spec + "]"
	}
	loc := sarifLocation{PhysicalLocation: sarifPhysical{ArtifactLocation: artifactOf(d.File)}}
	if d.Pos.IsValid() {
		var src []byte
		if opt.Source != nil {
			src = opt.Source(d.File)
		}
		reg := &sarifRegion{StartLine: d.Pos.Line, StartColumn: codePointCol(src, d.Pos.Offset, d.Pos.Col)}
		if d.End.IsValid() && !d.End.Before(d.Pos) {
			reg.EndLine = d.End.Line
			reg.EndColumn = codePointCol(src, d.End.Offset, d.End.Col)
		}
		loc.PhysicalLocation.Region = reg
	}
	sum := sha256.Sum256([]byte(ruleID(d) + "\x00" + d.File + "\x00" + d.Message))
	return sarifResult{
		RuleID:              ruleID(d),
		RuleIndex:           ruleIndex,
		Level:               sarifLevel(d.Severity),
		Message:             sarifMessage{Text: text},
		Locations:           []sarifLocation{loc},
		PartialFingerprints: map[string]string{"ptxkitDiagnostic/v1": hex.EncodeToString(sum[:16])},
	}
}

// artifactOf returns the location of a file: relative paths are relative
// to %SRCROOT% with forward slashes; absolute ones become file URIs.
func artifactOf(file string) sarifArtifact {
	if file == "" || file == "-" {
		return sarifArtifact{URI: "stdin"}
	}
	slashed := filepath.ToSlash(file)
	if filepath.IsAbs(file) {
		return sarifArtifact{URI: "file://" + escapePath(slashed)}
	}
	return sarifArtifact{URI: escapePath(strings.TrimPrefix(slashed, "./")), URIBaseID: "%SRCROOT%"}
}

// escapePath percent-encodes the characters a URI path cannot hold.
func escapePath(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte("%#?[]", c) >= 0 {
			b.WriteString("%" + strings.ToUpper(hex.EncodeToString([]byte{c})))
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// codePointCol converts a 1-based byte column to a 1-based code point
// column using the line's text in src; without src it returns col.
func codePointCol(src []byte, offset, col int32) int32 {
	if src == nil || offset < 0 || int(offset) > len(src) || col < 1 || col-1 > offset {
		return col
	}
	lineStart := int(offset - (col - 1))
	return int32(utf8.RuneCount(src[lineStart:offset])) + 1
}
