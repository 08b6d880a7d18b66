package main

import (
	"io"
	"os"
)

// createOutput creates the file a command writes a picture or a trace to
// (run --timeline, run --tmem-svg). The playground, which has no file
// system, replaces it with files in memory (main_js.go).
var createOutput = func(path string) (io.WriteCloser, error) { return os.Create(path) }
