// Package sariftest checks SARIF logs field by field against the SARIF
// 2.1.0 JSON schema's definitions of the objects ptxkit writes: every
// object there has "additionalProperties": false, so a property must be
// one the schema defines; the required properties must be present; levels
// and columnKind are enums; lines and columns start at 1. The schema is
// not vendored: the definitions below restate, for the properties ptxkit
// may write, what the schema says (the sarifLog to notification definitions). Tests of
// the SARIF writer and of ptxkit check use it.
package sariftest

import (
	"encoding/json"
	"fmt"
	"slices"
)

// Check parses log and returns each place where it breaks the schema's
// definitions; none for a conforming log.
func Check(log []byte) []string {
	var v any
	if err := json.Unmarshal(log, &v); err != nil {
		return []string{"not JSON: " + err.Error()}
	}
	return CheckValue(v)
}

// CheckValue is Check for a decoded log.
func CheckValue(v any) []string { return checkValue("log", "log", v) }

// sarifObject is one schema definition: its properties, each with the
// kind of its value, and the required ones.
type sarifObject struct {
	props    map[string]string
	required []string
}

// Value kinds: another definition's name, "[]" + a name for an array of
// them, or one of the leaf kinds below.
const (
	kString    = "string"
	kBool      = "bool"
	kLevel     = "level"     // enum none, note, warning, error
	kColumns   = "columns"   // enum utf16CodeUnits, unicodeCodePoints
	kIndex     = "int>=-1"   // integer, minimum -1
	kCount     = "int>=0"    // integer, minimum 0
	kLine      = "int>=1"    // integer, minimum 1
	kStringMap = "stringMap" // object of strings
	kBag       = "bag"       // propertyBag: any properties
)

var schemaDefs = map[string]sarifObject{
	"log":                    {map[string]string{"$schema": kString, "version": kString, "runs": "[]run"}, []string{"version", "runs"}},
	"run":                    {map[string]string{"tool": "tool", "invocations": "[]invocation", "results": "[]result", "columnKind": kColumns}, []string{"tool"}},
	"tool":                   {map[string]string{"driver": "toolComponent"}, []string{"driver"}},
	"toolComponent":          {map[string]string{"name": kString, "version": kString, "semanticVersion": kString, "informationUri": kString, "rules": "[]reportingDescriptor", "properties": kBag}, []string{"name"}},
	"reportingDescriptor":    {map[string]string{"id": kString, "shortDescription": "multiformatMessage", "fullDescription": "multiformatMessage", "help": "multiformatMessage", "defaultConfiguration": "reportingConfiguration"}, []string{"id"}},
	"multiformatMessage":     {map[string]string{"text": kString, "markdown": kString}, []string{"text"}},
	"reportingConfiguration": {map[string]string{"level": kLevel, "enabled": kBool}, nil},
	"invocation":             {map[string]string{"executionSuccessful": kBool, "toolExecutionNotifications": "[]notification"}, []string{"executionSuccessful"}},
	"notification":           {map[string]string{"level": kLevel, "message": "message", "locations": "[]location"}, []string{"message"}},
	"message":                {map[string]string{"text": kString}, []string{"text"}},
	"result":                 {map[string]string{"ruleId": kString, "ruleIndex": kIndex, "level": kLevel, "message": "message", "locations": "[]location", "partialFingerprints": kStringMap}, []string{"message"}},
	"location":               {map[string]string{"physicalLocation": "physicalLocation"}, nil},
	"physicalLocation":       {map[string]string{"artifactLocation": "artifactLocation", "region": "region"}, []string{"artifactLocation"}},
	"artifactLocation":       {map[string]string{"uri": kString, "uriBaseId": kString}, nil},
	"region":                 {map[string]string{"startLine": kLine, "startColumn": kLine, "endLine": kLine, "endColumn": kLine, "byteOffset": kIndex, "byteLength": kCount}, nil},
}

// checkValue reports where v, of the given kind, breaks the schema.
func checkValue(path, kind string, v any) []string {
	var errs []string
	bad := func(format string, args ...any) { errs = append(errs, path+": "+fmt.Sprintf(format, args...)) }
	switch kind {
	case kString:
		if _, ok := v.(string); !ok {
			bad("not a string")
		}
	case kBool:
		if _, ok := v.(bool); !ok {
			bad("not a boolean")
		}
	case kLevel, kColumns:
		enum := map[string][]string{kLevel: {"none", "note", "warning", "error"}, kColumns: {"utf16CodeUnits", "unicodeCodePoints"}}[kind]
		if s, _ := v.(string); !slices.Contains(enum, s) {
			bad("%v is not one of %v", v, enum)
		}
	case kIndex, kCount, kLine:
		minimum := map[string]float64{kIndex: -1, kCount: 0, kLine: 1}[kind]
		if f, ok := v.(float64); !ok || f != float64(int64(f)) || f < minimum {
			bad("%v is not an integer >= %v", v, minimum)
		}
	case kStringMap:
		m, ok := v.(map[string]any)
		if !ok {
			bad("not an object")
		}
		for k, x := range m {
			errs = append(errs, checkValue(path+"."+k, kString, x)...)
		}
	case kBag:
		if _, ok := v.(map[string]any); !ok {
			bad("not an object")
		}
	default:
		if elem, ok := cutArray(kind); ok {
			a, ok := v.([]any)
			if !ok {
				bad("not an array")
			}
			for i, x := range a {
				errs = append(errs, checkValue(fmt.Sprintf("%s[%d]", path, i), elem, x)...)
			}
			return errs
		}
		errs = append(errs, checkObject(path, kind, v)...)
	}
	return errs
}

func cutArray(kind string) (string, bool) {
	if len(kind) > 2 && kind[:2] == "[]" {
		return kind[2:], true
	}
	return "", false
}

func checkObject(path, kind string, v any) []string {
	def, known := schemaDefs[kind]
	m, ok := v.(map[string]any)
	if !known || !ok {
		return []string{fmt.Sprintf("%s: not a %s object", path, kind)}
	}
	var errs []string
	for _, r := range def.required {
		if _, ok := m[r]; !ok {
			errs = append(errs, fmt.Sprintf("%s: %s lacks required %q", path, kind, r))
		}
	}
	for k, x := range m {
		pk, ok := def.props[k]
		if !ok {
			errs = append(errs, fmt.Sprintf("%s: %s has no property %q (additionalProperties is false)", path, kind, k))
			continue
		}
		errs = append(errs, checkValue(path+"."+k, pk, x)...)
	}
	return errs
}
