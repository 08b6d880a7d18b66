package parser

import (
	"errors"
	"runtime/debug"
	"sync/atomic"

	"github.com/ptxkit/ptxkit/ptx/ast"
	"github.com/ptxkit/ptxkit/ptx/token"
)

// A Piece is what a Pipe hands out: a top-level statement, as Stream.Next
// returns it, or a piece of the body of the function handed out last, as
// Stream.NextStmts returns it.
type Piece struct {
	Top   ast.TopStmt // the top-level statement; nil for a piece of a body
	Stmts []ast.Stmt  // a body's statements, or the one block of a BlockStart or BlockEnd
	Event BodyEvent   // what the body piece is (Statement for a run of statements)
	Clean bool        // no syntax error so far, in this piece or before it

	// Ends the parser found after the piece's nodes were handed to the
	// consumer; Pipe.Next writes them into the nodes before handing the
	// piece out (the Block of a BlockEnd, the body and function of an
	// EndOfBody).
	endBlock *ast.Block
	blockTo  token.Pos
	endFn    *ast.Function
	fnTo     token.Pos
}

// A Pipe parses a StreamStatements stream on a goroutine of its own and
// hands its pieces, in source order, to the goroutine that calls Next, so
// that parsing overlaps with what the consumer does with each piece. The
// pieces are exactly those Next and NextStmts hand out one by one:
// top-level statements, and after a function with a body every piece of
// the body up to its EndOfBody.
//
// The nodes are recycled as with StreamStatements, but in several
// generations (pipeGens) so that the parser fills one while the consumer
// reads another: the nodes of a Piece (and, for declarations, labels and
// blocks, until the function's EndOfBody is handed out) stay valid until
// the consumer has asked for pipeBatch more statements; memory stays
// bounded by a few generations of statements, not by the module.
//
// Once a piece with a syntax error has been handed out (Clean false) no
// further piece is: only syntax errors will be reported, and the parser
// reads the rest of the input for them alone.
type Pipe struct {
	s        *Stream
	out      chan []Piece  // batches, in order
	quit     chan struct{} // closed by Close: the producer stops
	wake     chan struct{} // the consumer finished a batch
	done     chan struct{} // closed when the producer returns
	consumed atomic.Int64  // batches the consumer has finished
	panicked any           // what the producer panicked with (read after out is closed)
	cur      []Piece       // the batch being handed out
	next     int           // index in cur of the next piece
	closed   bool
}

// pipeGens is how many generations of nodes (and batches) are in flight.
const pipeGens = 4

// pipeBatch is how many body statements a batch holds before its nodes
// change generation (a variable for the tests only).
//
// A generation of 1,024 statements' nodes is a few hundred kilobytes, so
// that the generations in flight stay in the caches. The batch size
// hardly changes the work: under callgrind a 4 MiB module costs the same
// instructions (within 0.3%) with batches of 1,024 to 16,384, 1% more
// than the serial pipeline; larger batches only mean fewer hand-overs.
var pipeBatch = stmtBatch

// errPipeClosed stops the producer when the consumer closes the pipe.
var errPipeClosed = errors.New("pipe closed")

// Pipe starts parsing s on another goroutine and returns the Pipe that
// hands out its pieces. s must have been made with StreamStatements and
// not yet read; afterwards only Errors and End may be called on it, and
// only once Next has returned false. Call Close when done (it may be
// deferred: it also stops a producer whose consumer gave up).
//
// A panic of the parser (a memory fault reading a mapped source that
// shrank, with debug.SetPanicOnFault as the producer sets it) is raised
// again in the consumer by Next.
func (s *Stream) Pipe() *Pipe {
	if !s.p.stmtWise {
		panic("parser: Pipe needs a StreamStatements stream")
	}
	pp := &Pipe{
		s:    s,
		out:  make(chan []Piece, pipeGens),
		quit: make(chan struct{}),
		wake: make(chan struct{}, 1),
		done: make(chan struct{}),
	}
	pr := &producer{pp: pp, s: s}
	for g := range pipeGens {
		pr.stmtGens[g] = newRecycled()
		pr.bodyGens[g] = newRecycled()
		pr.bodyFree[g] = 0
	}
	s.p.stmtNodes = pr.stmtGens[0]
	s.p.body = pr.bodyGens[0]
	s.p.onBody = pr.bodyOpened
	s.body.deferEnds = true
	s.pipe = pr
	go pr.run()
	return pp
}

// Next returns the next piece; false at the end of the stream. The piece
// and the nodes it holds stay valid as Pipe says.
func (pp *Pipe) Next() (*Piece, bool) {
	for pp.next >= len(pp.cur) {
		if pp.cur != nil {
			pp.cur = nil
			pp.consumed.Add(1)
			select {
			case pp.wake <- struct{}{}:
			default: // a wake-up is pending already
			}
		}
		b, ok := <-pp.out
		if !ok {
			if pp.panicked != nil {
				panic(pp.panicked)
			}
			return nil, false
		}
		pp.cur, pp.next = b, 0
	}
	pc := &pp.cur[pp.next]
	pp.next++
	if pc.endBlock != nil {
		pc.endBlock.To = pc.blockTo
	}
	if pc.endFn != nil {
		pc.endFn.To = pc.fnTo
	}
	return pc, true
}

// Close stops the producer if it is still running and waits for it.
func (pp *Pipe) Close() {
	if !pp.closed {
		pp.closed = true
		close(pp.quit)
	}
	<-pp.done
}

// A producer is the parsing side of a Pipe.
type producer struct {
	pp *Pipe
	s  *Stream

	batch  int64                // index of the batch being filled; it uses generation batch%pipeGens
	sent   int64                // batches sent
	pieces [pipeGens][]Piece    // the pieces of each generation's batch
	stmts  [pipeGens][]ast.Stmt // copies of the statement runs of each generation's batch

	stmtGens [pipeGens]*nodes // statements' nodes, one generation per batch
	bodyGens [pipeGens]*nodes // declarations, labels and blocks of bodies
	bodyFree [pipeGens]int64  // batches consumed before a body generation is free again
	body     int              // the body generation in use

	handed     int // statements handed out in this batch
	bodyHanded int // statements handed out since the body generation changed
}

// run parses the whole stream, sending its pieces until one has a
// syntax error.
func (pr *producer) run() {
	pp := pr.pp
	defer close(pp.done)
	defer func() {
		if r := recover(); r != nil && r != errPipeClosed {
			pp.panicked = r
		}
		close(pp.out)
	}()
	debug.SetPanicOnFault(true)
	s := pr.s
	for top := s.Next(); top != nil; top = s.Next() {
		if !pr.emit(Piece{Top: top}) || len(s.body.open) == 0 {
			continue
		}
		for {
			run, ev := s.NextStmts()
			pc := Piece{Stmts: pr.copyRun(run), Event: ev}
			if ev == BlockEnd || ev == EndOfBody {
				pc.endBlock, pc.blockTo = s.body.endBlock, s.body.blockTo
			}
			if ev == EndOfBody {
				pc.endFn, pc.fnTo = s.body.endFn, s.body.fnTo
			}
			if !pr.emit(pc) || ev == EndOfBody {
				break
			}
		}
	}
	if s.pipe != nil {
		pr.flush()
	}
}

// emit adds pc to the batch; false once the pipe stopped handing out
// pieces (a syntax error), when it switches the stream back to plain
// recycling after the consumer has read everything.
func (pr *producer) emit(pc Piece) bool {
	s := pr.s
	if s.pipe == nil {
		return false
	}
	pc.Clean = len(s.p.errs) == 0
	g := pr.batch % pipeGens
	pr.pieces[g] = append(pr.pieces[g], pc)
	if pc.Clean {
		return true
	}
	pr.flush()
	pr.waitFor(pr.sent)
	s.pipe = nil
	s.p.onBody = nil
	s.body.deferEnds = false
	return false
}

// copyRun copies a run of NextStmts into the batch's storage (the
// stream reuses its slice).
func (pr *producer) copyRun(run []ast.Stmt) []ast.Stmt {
	if len(run) == 0 {
		return nil
	}
	g := pr.batch % pipeGens
	buf := append(pr.stmts[g], run...)
	pr.stmts[g] = buf
	return buf[len(buf)-len(run) : len(buf) : len(buf)]
}

// recycle counts n statements about to be handed out (Stream.recycle)
// and starts a new batch once the current one holds pipeBatch.
func (pr *producer) recycle(n int) {
	pr.handed += n
	pr.bodyHanded += n
	if pr.handed >= pipeBatch {
		pr.flush()
	}
}

// counted counts the n statements of a run just handed out.
func (pr *producer) counted(n int) {
	pr.handed += n
	pr.bodyHanded += n
}

// bodyOpened is called as a function body opens: the body generation
// changes (with the batch) once it holds pipeBatch statements' worth of
// functions, instead of at every function.
func (pr *producer) bodyOpened() {
	if pr.bodyHanded < pipeBatch {
		return
	}
	pr.flush() // the functions of the generation end in the batch sent
	pr.bodyFree[pr.body] = pr.sent
	pr.body = (pr.body + 1) % pipeGens
	// Each change of generation is also a new batch, so flush has
	// already waited for as much; kept so as not to depend on it.
	pr.waitFor(pr.bodyFree[pr.body])
	pr.bodyGens[pr.body].reset()
	pr.s.p.body = pr.bodyGens[pr.body]
	pr.bodyHanded = 0
}

// flush sends the batch and starts the next one in the next generation
// of statement nodes, once the consumer is done with that generation.
func (pr *producer) flush() {
	pp := pr.pp
	g := pr.batch % pipeGens
	select {
	case pp.out <- pr.pieces[g]:
	case <-pp.quit:
		panic(errPipeClosed)
	}
	pr.sent++
	pr.batch++
	pr.handed = 0
	g = pr.batch % pipeGens
	pr.waitFor(pr.batch - pipeGens + 1)
	pr.pieces[g] = pr.pieces[g][:0]
	clear(pr.stmts[g])
	pr.stmts[g] = pr.stmts[g][:0]
	pr.stmtGens[g].reset()
	pr.s.p.stmtNodes = pr.stmtGens[g]
}

// waitFor waits until the consumer has finished n batches.
func (pr *producer) waitFor(n int64) {
	pp := pr.pp
	for pp.consumed.Load() < n {
		select {
		case <-pp.wake:
		case <-pp.quit:
			panic(errPipeClosed)
		}
	}
}
