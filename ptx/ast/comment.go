package ast

// Comment is a "// ..." or "/* ... */" comment. Text is the exact source
// text, delimiters included (a "//" comment ends before its newline).
// Comments are recorded in Module.Comments only when the parser is asked
// to keep them (parser.ParseComments), for the formatter.
type Comment struct {
	Span
	Text string
}
