package parser

// SetFastPaths turns the operand fast paths on or off (tests only).
func SetFastPaths(on bool) { fastPaths = on }
