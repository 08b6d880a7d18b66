package diag

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
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
	Tool        sarifTool         `json:"tool"`
	Invocations []sarifInvocation `json:"invocations"`
	Results     []sarifResult     `json:"results"` // never omitted: GitHub wants an array
	ColumnKind  string            `json:"columnKind"`
}

// sarifInvocation says whether the tool ran to completion and what went
// wrong besides the results (SARIF 2.1.0, invocation object).
type sarifInvocation struct {
	ExecutionSuccessful        bool                `json:"executionSuccessful"`
	ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications,omitempty"`
}

// sarifNotification is one tool execution notification (SARIF 2.1.0,
// notification object).
type sarifNotification struct {
	Level     string          `json:"level"`
	Message   sarifMessage    `json:"message"`
	Locations []sarifLocation `json:"locations,omitempty"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name            string          `json:"name"`
	Version         string          `json:"version,omitempty"`
	SemanticVersion string          `json:"semanticVersion,omitempty"`
	InformationURI  string          `json:"informationUri"`
	Rules           []sarifRule     `json:"rules"`
	Properties      *sarifToolProps `json:"properties,omitempty"`
}

// sarifToolProps is the driver's property bag: the VCS revision it was
// built from and the module version.
type sarifToolProps struct {
	Revision      string `json:"revision,omitempty"`
	ModuleVersion string `json:"moduleVersion,omitempty"` // as the build reports it: v1.2.3, (devel)
}

type sarifRule struct {
	ID                   string        `json:"id"`
	ShortDescription     sarifMessage  `json:"shortDescription"`
	FullDescription      *sarifMessage `json:"fullDescription,omitempty"`
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

// sarifRegion locates a result by line and code point column when the
// source was at hand, else by line and byte offset (SARIF 2.1.0, region
// object): SARIF has no byte columns.
type sarifRegion struct {
	StartLine   int32  `json:"startLine"`
	StartColumn int32  `json:"startColumn,omitempty"`
	EndLine     int32  `json:"endLine,omitempty"`
	EndColumn   int32  `json:"endColumn,omitempty"`
	ByteOffset  *int32 `json:"byteOffset,omitempty"`
	ByteLength  *int32 `json:"byteLength,omitempty"`
}

// DefaultMaxResults is the number of results a SARIF log holds at most
// when SARIFOptions.MaxResults is 0: code scanning services refuse or
// truncate larger runs (GitHub keeps 5,000 per run), and a log of a
// hundred thousand copies of one mistake helps nobody. A notification
// says how many were dropped.
const DefaultMaxResults = 5000

// SARIFOptions tunes WriteSARIFWith.
type SARIFOptions struct {
	// ToolVersion is the module version (v1.2.3, a pseudo-version or
	// "(devel)"): the driver's version is its numeric MAJOR.MINOR.PATCH
	// (0.0.0 when it has none), its semanticVersion the rest when it is
	// one, and the property moduleVersion the string itself.
	ToolVersion string
	// ToolRevision, when not "", is the VCS revision the tool was built
	// from, in the driver's property bag.
	ToolRevision string
	// Source returns the text of a file, or nil. With it, columns are
	// written in Unicode code points, the log's columnKind; without it a
	// region gives the line and the byte offset and length instead.
	Source func(file string) []byte
	// Rules describes a rule id for the log's rule list; rules it does
	// not know get a description made from the id.
	Rules func(id string) (RuleInfo, bool)
	// MaxResults bounds the results (0: DefaultMaxResults; negative: no
	// bound). The first ones in the list's order are kept.
	MaxResults int
	// Failures are the inputs the tool could not read: each becomes an
	// error notification of the invocation, which is then marked
	// unsuccessful.
	Failures []Failure
}

// RuleInfo describes a rule independently of any one result.
type RuleInfo struct {
	Summary string // one sentence: what the rule checks
	Spec    string // the spec section it comes from, "" when none
	Help    string // how to fix a violation, "" when there is no general advice
}

// Failure is an input the tool could not process.
type Failure struct {
	File string
	Err  error
}

// WriteSARIF writes l as a SARIF 2.1.0 log with one run.
func WriteSARIF(w io.Writer, l List) error { return WriteSARIFWith(w, l, SARIFOptions{}) }

// WriteSARIFWith writes l as a SARIF 2.1.0 log with one run, suitable for
// GitHub code scanning: stable rule ids, relative paths under %SRCROOT%,
// a results array even when empty, a partial fingerprint per result, an
// invocation with the failures and dropped results as notifications.
func WriteSARIFWith(w io.Writer, l List, opt SARIFOptions) error {
	run := sarifRun{
		Tool:       sarifTool{Driver: driverOf(opt)},
		Results:    []sarifResult{},
		ColumnKind: "unicodeCodePoints",
	}
	index := map[string]int{}
	for _, r := range sortedRules(l, opt.Rules) {
		index[r.ID] = len(run.Tool.Driver.Rules)
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, r)
	}
	kept := l
	if max := opt.maxResults(); max >= 0 && len(l) > max {
		kept = l[:max]
	}
	for _, d := range kept {
		run.Results = append(run.Results, sarifResultOf(d, index[ruleID(d)], opt))
	}
	run.Invocations = []sarifInvocation{invocationOf(len(l)-len(kept), len(l), opt.Failures)}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(sarifLog{Schema: sarifSchema, Version: sarifVersion, Runs: []sarifRun{run}})
}

func (opt *SARIFOptions) maxResults() int {
	if opt.MaxResults == 0 {
		return DefaultMaxResults
	}
	return opt.MaxResults
}

func driverOf(opt SARIFOptions) sarifDriver {
	d := sarifDriver{Name: toolName, Version: "0.0.0", InformationURI: toolURI, Rules: []sarifRule{}}
	if v, ok := strings.CutPrefix(opt.ToolVersion, "v"); ok && isSemver(v) {
		d.SemanticVersion = v
		d.Version = numericVersion(v)
	}
	if opt.ToolRevision != "" || opt.ToolVersion != "" {
		d.Properties = &sarifToolProps{Revision: opt.ToolRevision, ModuleVersion: opt.ToolVersion}
	}
	return d
}

// numericVersion is the MAJOR.MINOR.PATCH of a semantic version, the
// numeric form code scanning services show and compare; a build outside
// a released module is 0.0.0.
func numericVersion(semver string) string {
	core, _, _ := strings.Cut(semver, "+")
	core, _, _ = strings.Cut(core, "-")
	return core
}

// isSemver reports whether v is MAJOR.MINOR.PATCH with an optional
// -prerelease or +build suffix (semver.org), as SARIF's semanticVersion
// wants.
func isSemver(v string) bool {
	core, _, _ := strings.Cut(v, "+")
	core, _, _ = strings.Cut(core, "-")
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return false
	}
	for _, p := range parts {
		if p == "" || strings.Trim(p, "0123456789") != "" || len(p) > 1 && p[0] == '0' {
			return false
		}
	}
	return true
}

// invocationOf reports the failures and the results left out of the log.
func invocationOf(dropped, total int, failures []Failure) sarifInvocation {
	inv := sarifInvocation{ExecutionSuccessful: len(failures) == 0}
	for _, f := range failures {
		n := sarifNotification{Level: "error", Message: sarifMessage{Text: f.Err.Error()}}
		if f.File != "" {
			n.Locations = []sarifLocation{{PhysicalLocation: sarifPhysical{ArtifactLocation: artifactOf(f.File)}}}
		}
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, n)
	}
	if dropped > 0 {
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, sarifNotification{Level: "warning",
			Message: sarifMessage{Text: fmt.Sprintf("%d of %d results were dropped: the log holds the first %d", dropped, total, total-dropped)}})
	}
	return inv
}

func ruleID(d Diagnostic) string {
	if d.Rule == "" {
		return "ptxkit"
	}
	return d.Rule
}

// sortedRules returns one reporting descriptor per rule id in l, sorted by
// id so that the output is deterministic. Its description and help come
// from info, never from one of the results: results of one rule differ.
func sortedRules(l List, info func(string) (RuleInfo, bool)) []sarifRule {
	seen := map[string]*sarifRule{}
	for _, d := range l {
		id := ruleID(d)
		if r, ok := seen[id]; ok {
			if lv := sarifLevel(d.Severity); lv == "error" {
				r.DefaultConfiguration.Level = lv // one rule may report errors and warnings
			}
			continue
		}
		seen[id] = ruleOf(id, d.Severity, info)
	}
	rules := make([]sarifRule, 0, len(seen))
	for _, r := range seen {
		completeRule(r)
		rules = append(rules, *r)
	}
	sort.Slice(rules, func(i, j int) bool { return rules[i].ID < rules[j].ID })
	return rules
}

// ruleOf describes rule id from info, or from the id alone.
func ruleOf(id string, sev Severity, info func(string) (RuleInfo, bool)) *sarifRule {
	r := &sarifRule{ID: id, ShortDescription: sarifMessage{Text: strings.ReplaceAll(id, "-", " ")},
		DefaultConfiguration: sarifConfig{Level: sarifLevel(sev)}}
	if info == nil {
		return r
	}
	ri, ok := info(id)
	if !ok {
		return r
	}
	if ri.Summary != "" {
		r.ShortDescription.Text = ri.Summary
	}
	if ri.Spec != "" {
		r.FullDescription = &sarifMessage{Text: r.ShortDescription.Text + " (" + ri.Spec + ")"}
	}
	if ri.Help != "" {
		r.Help = &sarifMessage{Text: ri.Help}
	}
	return r
}

// completeRule gives r the full description and help every rule of the
// log carries: from its summary, and a general help where the rule has
// no fix of its own.
func completeRule(r *sarifRule) {
	if r.FullDescription == nil {
		r.FullDescription = &sarifMessage{Text: r.ShortDescription.Text}
	}
	if r.Help == nil {
		r.Help = &sarifMessage{Text: "Each result's message says what is wrong and, where one is known, how to fix it."}
	}
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
		loc.PhysicalLocation.Region = regionOf(d, src)
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

// regionOf locates d in code point columns of src, or, without src (or
// with a position src does not hold), by byte offset.
func regionOf(d Diagnostic, src []byte) *sarifRegion {
	end := d.End
	if !end.IsValid() || end.Before(d.Pos) {
		end = d.Pos
	}
	reg := &sarifRegion{StartLine: d.Pos.Line}
	startCol, ok1 := codePointCol(src, d.Pos.Offset, d.Pos.Col)
	endCol, ok2 := codePointCol(src, end.Offset, end.Col)
	if !ok1 || !ok2 {
		off, n := d.Pos.Offset, end.Offset-d.Pos.Offset
		reg.ByteOffset, reg.ByteLength = &off, &n
		return reg
	}
	reg.StartColumn = startCol
	if d.End.IsValid() && !d.End.Before(d.Pos) {
		reg.EndLine, reg.EndColumn = end.Line, endCol
	}
	return reg
}

// codePointCol converts a 1-based byte column to a 1-based code point
// column using the line's text in src. It fails without src or when the
// position does not fit in it.
func codePointCol(src []byte, offset, col int32) (int32, bool) {
	if src == nil || offset < 0 || int(offset) > len(src) || col < 1 || col-1 > offset {
		return 0, false
	}
	lineStart := int(offset - (col - 1))
	if lineStart > 0 && src[lineStart-1] != '\n' {
		return 0, false
	}
	return int32(utf8.RuneCount(src[lineStart:offset])) + 1, true
}
