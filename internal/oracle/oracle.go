// Package oracle finds NVIDIA's CUDA tools (ptxas, nvdisasm, cuobjdump)
// for ptxkit's differential tests. The tools are optional: tests that need
// one skip with SkipMessage when Tool returns "".
package oracle

import (
	"os"
	"path/filepath"
)

// Default is the CUDA version the differential tests compare with.
const Default = "12.5"

// Tool returns the path of the CUDA tool name ("ptxas", "nvdisasm",
// "cuobjdump") of the given CUDA version ("12.5" or "11.8"), or "" when it
// is not installed. $PTXKIT_CUDA_BIN names the folder of the Default
// version; otherwise the tools are looked for in
// $HOME/.cache/cuda-oracle/VERSION/bin, where scripts/fetch-cuda-oracle.sh
// puts them.
func Tool(version, name string) string {
	var dirs []string
	if version == Default {
		dirs = append(dirs, os.Getenv("PTXKIT_CUDA_BIN"))
	}
	if home, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(home, ".cache", "cuda-oracle", version, "bin"))
	}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p
		}
	}
	return ""
}

// Ptxas returns the path of the Default version's ptxas, or "".
func Ptxas() string { return Tool(Default, "ptxas") }

// SkipMessage explains how to make the tools available.
const SkipMessage = "NVIDIA CUDA tools not found: set PTXKIT_CUDA_BIN or run scripts/fetch-cuda-oracle.sh 12.5 (and 11.8)"
