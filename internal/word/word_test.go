package word

import "testing"

// TestPackDeterminesShortStrings checks that two different strings of the
// same length up to 8 bytes never pack alike.
func TestPackDeterminesShortStrings(t *testing.T) {
	names := []string{"", "%r", "%p", "st", "ld", ".v4", ".v8", "%rd1", "%rd12", "%rd21", "%f123", ".global", ".shared", ".L2::ev", "_", "a", "ab", "ba", "abc", "acb", "12345678", "12345687"}
	seen := map[[2]uint64]string{}
	for _, s := range names {
		k := [2]uint64{Pack(s), uint64(len(s))}
		if prev, ok := seen[k]; ok && prev != s {
			t.Errorf("%q and %q pack alike", prev, s)
		}
		seen[k] = s
	}
	// Longer strings are sampled by their first and last four bytes.
	if Pack(".shared::cluster") == Pack(".shared::cta") || Pack(".global") == Pack(".shared") {
		t.Error("Pack confuses strings that differ in their first or last four bytes")
	}
}
