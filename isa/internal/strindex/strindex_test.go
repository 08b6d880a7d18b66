package strindex

import (
	"fmt"
	"strings"
	"testing"
)

func TestBuildGet(t *testing.T) {
	var keys []string
	var vals []uint16
	for i := range 300 {
		keys = append(keys, fmt.Sprintf(".k%d", i*7))
		vals = append(vals, uint16(i))
	}
	keys = append(keys, ".m64n256k16", ".m64n248k16", ".shared::cluster")
	vals = append(vals, 1000, 1001, 1002)
	x := Build(keys, vals)
	for i, k := range keys {
		if v, ok := x.Get(k); !ok || v != vals[i] {
			t.Errorf("Get(%q) = %d, %v; want %d", k, v, ok, vals[i])
		}
	}
	for _, s := range []string{"", ".", ".k1", ".k2100", ".m64n256k8", ".shared::clusteR", strings.Repeat("x", 300)} {
		if _, ok := x.Get(s); ok {
			t.Errorf("Get(%q) found a key", s)
		}
	}
	if p := x.Probes(); p > MaxProbes {
		t.Errorf("probes %d > %d", p, MaxProbes)
	}
	if x.Len() != len(keys) {
		t.Errorf("Len = %d, want %d", x.Len(), len(keys))
	}
}

func TestLiteralListsEverySlot(t *testing.T) {
	x := Build([]string{".a", ".bb", ".longer_than_eight"}, []uint16{1, 2, 3})
	var b strings.Builder
	x.Literal(&b, func(k string) string { return fmt.Sprint(len(k)) })
	s := b.String()
	for _, want := range []string{`".longer_than_eight"`, fmt.Sprintf("Mask: %#x", x.Mask), fmt.Sprintf("%d: ", len(x.Slots)-1)} {
		if !strings.Contains(s, want) {
			t.Errorf("literal lacks %s:\n%s", want, s)
		}
	}
}
