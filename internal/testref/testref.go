// Package testref finds the project's reference data for tests: the
// records of NVIDIA's tools and of an H100 that decide what is valid and
// what a launch writes (corpus, gpu-reference, oracle verdicts, litmus
// suites). The full set lives in a folder named shared beside the
// repository; the parts the tests read, except the largest, are copied
// into testdata/shared so that a fresh clone runs them.
package testref

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Path returns where the reference file or folder elem (relative to the
// reference root, e.g. "corpus", "stores.tsv") is, looking in order in
// $PTXKIT_SHARED, in ../shared beside the repository (the full, current
// set) and in the repository's testdata/shared (the copy). When none
// holds it, Path returns the copy's path, so that the test's own "not
// found" skip names a path inside the repository.
func Path(elem ...string) string {
	rel := filepath.Join(elem...)
	root := moduleRoot()
	var roots []string
	if env := os.Getenv("PTXKIT_SHARED"); env != "" {
		roots = append(roots, env)
	}
	if root != "" {
		roots = append(roots, filepath.Join(root, "..", "shared"), filepath.Join(root, "testdata", "shared"))
	}
	for _, r := range roots {
		p := filepath.Join(r, rel)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if root == "" {
		return filepath.Join("testdata", "shared", rel)
	}
	return filepath.Join(root, "testdata", "shared", rel)
}

// moduleRoot is the nearest folder at or above the working directory (a
// test's package folder) that holds go.mod, or "".
func moduleRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// Launch is one row of the GPU reference set's launches.tsv: the kernel,
// its launch shape and its arguments as ptxkit run writes them.
type Launch struct {
	Name, PTX, Kernel, Grid, Block, Cluster, Shared, Compare string
	Args                                                     []string
}

// Launches reads the manifest at path (launches.tsv): nine tab-separated
// columns a row, "#" lines and empty lines skipped.
func Launches(path string) ([]Launch, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []Launch
	for i, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		c := strings.Split(line, "\t")
		if len(c) != 9 {
			return nil, fmt.Errorf("%s:%d: %d columns, want 9", path, i+1, len(c))
		}
		out = append(out, Launch{Name: c[0], PTX: c[1], Kernel: c[2], Grid: c[3], Block: c[4], Cluster: c[5],
			Shared: c[6], Compare: c[7], Args: strings.Fields(c[8])})
	}
	return out, nil
}
