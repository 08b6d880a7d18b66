package parser

// SetFastPaths turns the operand fast paths on or off (tests only).
func SetFastPaths(on bool) { fastPaths = on }

// SetPipeBatch sets how many statements a Pipe's batch holds and returns
// the previous value (tests only).
func SetPipeBatch(n int) int {
	old := pipeBatch
	pipeBatch = n
	return old
}
