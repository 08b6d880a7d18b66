// Package oracle finds NVIDIA's CUDA tools for the differential tests of
// the front end.
package oracle

import (
	"os"
	"path/filepath"
)

// Ptxas returns the path of ptxas from $PTXKIT_CUDA_BIN or
// $HOME/.cache/cuda-oracle/12.5/bin, or "" when neither has it.
func Ptxas() string {
	dirs := []string{os.Getenv("PTXKIT_CUDA_BIN")}
	if home, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(home, ".cache", "cuda-oracle", "12.5", "bin"))
	}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		p := filepath.Join(d, "ptxas")
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p
		}
	}
	return ""
}

// SkipMessage explains how to make the oracle available.
const SkipMessage = "ptxas not found: set PTXKIT_CUDA_BIN or fetch CUDA 12.5 into ~/.cache/cuda-oracle (../shared/tools/cuda-oracle 12.5)"
