package sariftest

import "testing"

// TestSARIFSchemaCheckFails makes sure the check above can fail: an
// unknown property, a missing required one and a bad enum are caught.
func TestSARIFSchemaCheckFails(t *testing.T) {
	bad := map[string]any{"version": "2.1.0", "runs": []any{map[string]any{
		"tool":       map[string]any{"driver": map[string]any{"nam": "x"}},
		"columnKind": "bytes",
		"results":    []any{map[string]any{"level": "fatal", "message": map[string]any{"text": "m"}, "locations": []any{map[string]any{"physicalLocation": map[string]any{"artifactLocation": map[string]any{}, "region": map[string]any{"startLine": 0.0}}}}}},
	}}}
	if errs := CheckValue(bad); len(errs) != 5 {
		t.Errorf("%d errors, want 5 (driver lacks name, nam, columnKind, level, startLine): %q", len(errs), errs)
	}
}
