//go:build js && wasm

package main

// The playground (web/, scripts/playground.sh): ptxkit compiled to
// WebAssembly runs any of its commands in the page. It sets
//
//	ptxkit(args, stdin) -> Promise of {code, stdout, stderr, files}
//
// where files maps each path a command wrote (run --timeline FILE,
// run --tmem-svg FILE) to its text, and ptxkitExample, the built-in
// example's source and launch flags.

import (
	"bytes"
	"io"
	"os"
	"strings"
	"sync"
	"syscall/js"
)

// memFiles are the files of one command run in the page.
type memFiles struct {
	mu    sync.Mutex
	files map[string]*bytes.Buffer
}

type memFile struct{ *bytes.Buffer }

func (memFile) Close() error { return nil }

func (m *memFiles) create(path string) (io.WriteCloser, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b := new(bytes.Buffer)
	m.files[path] = b
	return memFile{b}, nil
}

// playgroundMu runs one command at a time: the commands share createOutput.
var playgroundMu sync.Mutex

// runInPage runs one command with stdin and returns its result as a
// JavaScript object.
func runInPage(args []string, stdin string) map[string]any {
	playgroundMu.Lock()
	defer playgroundMu.Unlock()
	files := &memFiles{files: map[string]*bytes.Buffer{}}
	createOutput = files.create
	var out, errb bytes.Buffer
	code := run(args, strings.NewReader(stdin), &out, &errb)
	written := map[string]any{}
	for p, b := range files.files {
		written[p] = b.String()
	}
	return map[string]any{"code": code, "stdout": out.String(), "stderr": errb.String(), "files": written}
}

func main() {
	// check turns the collector off for a one-shot command; a page runs
	// many.
	os.Setenv("GOGC", "100")
	js.Global().Set("ptxkit", js.FuncOf(func(this js.Value, a []js.Value) any {
		var args []string
		if len(a) > 0 {
			for i := range a[0].Length() {
				args = append(args, a[0].Index(i).String())
			}
		}
		stdin := ""
		if len(a) > 1 && a[1].Type() == js.TypeString {
			stdin = a[1].String()
		}
		promise := js.Global().Get("Promise")
		return promise.New(js.FuncOf(func(this js.Value, p []js.Value) any {
			resolve := p[0]
			go func() { resolve.Invoke(js.ValueOf(runInPage(args, stdin))) }()
			return nil
		}))
	}))
	flags := make([]any, len(exampleArgs))
	for i, f := range exampleArgs {
		flags[i] = f
	}
	js.Global().Set("ptxkitExample", js.ValueOf(map[string]any{"source": string(exampleSrc), "args": flags}))
	js.Global().Call("dispatchEvent", js.Global().Get("Event").New("ptxkit-ready"))
	select {}
}
