package main

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// svgCells parses an SVG, failing the test when it is not well-formed
// XML, and returns the titles of its cells by class and its legend rows.
func svgCells(t *testing.T, data []byte) (cells map[string][]string, legend int) {
	t.Helper()
	cells = map[string][]string{}
	d := xml.NewDecoder(bytes.NewReader(data))
	class, inTitle := "", false
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return cells, legend
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v", err)
		}
		switch x := tok.(type) {
		case xml.StartElement:
			if x.Name.Local == "rect" {
				class = ""
				for _, a := range x.Attr {
					if a.Name.Local == "class" {
						class = a.Value
					}
				}
				if class == "legend" {
					legend++
				}
			}
			inTitle = x.Name.Local == "title" && strings.HasPrefix(class, "cell")
		case xml.CharData:
			if inTitle {
				cells[class] = append(cells[class], string(x))
			}
		case xml.EndElement:
			inTitle = false
		}
	}
}

func TestRunTMEMSVG(t *testing.T) {
	f := filepath.Join(t.TempDir(), "tmem.svg")
	var out, errb bytes.Buffer
	code := run([]string{"run", "../../testdata/emu/tmem/lifecycle.ptx", "--block", "128", "--arg", "buf:6144",
		"--dump", "none", "--tmem-svg", f}, nil, &out, &errb)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	data, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	cells, legend := svgCells(t, data)
	// Each of the four warps stores .32x32b.x8 into its 32 lanes: 8 columns
	// of all 128 lanes, the picture's whole width.
	if n := len(cells["cell"]); n != 128*8 {
		t.Errorf("%d stored cells, want %d", n, 128*8)
	}
	if n := len(cells["cell empty"]); n != 0 {
		t.Errorf("%d empty cells, want 0", n)
	}
	if legend != 4 {
		t.Errorf("%d legend rows, want one per warp (4)", legend)
	}
	// Cell (lane 100, column 5) holds 100*100+5, written by warp 3.
	want := "lane 100, column 5: 0x00002715, stored by tcgen05.st.sync.aligned.32x32b.x8.b32 at line 46, warp 3"
	if got := cells["cell"][100*8+5]; got != want {
		t.Errorf("cell (100,5): %q\nwant %q", got, want)
	}
	if !bytes.Contains(data, []byte("tcgen05.st.sync.aligned.32x32b.x8.b32 at line 46, warp 2: 256 cells")) {
		t.Errorf("legend lacks warp 2's 256 cells")
	}

	// A CTA that ran no tcgen05 instruction: an empty grid.
	code = run([]string{"run", "--tmem-svg", f}, nil, &out, &errb)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	data, _ = os.ReadFile(f)
	cells, legend = svgCells(t, data)
	if len(cells["cell"]) != 0 || len(cells["cell empty"]) != 128*8 || legend != 0 {
		t.Errorf("empty Tensor Memory: %d stored, %d empty cells, %d legend rows", len(cells["cell"]), len(cells["cell empty"]), legend)
	}
}
