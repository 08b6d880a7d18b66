package mm

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// ExecGraph is an execution as herd7 draws one: its events, grouped by
// thread, and the relations between them. Edges are pairs of event ids
// (indices into Events).
type ExecGraph struct {
	Events []GraphEvent `json:"events"`
	PO     [][2]int     `json:"po"` // program order between consecutive events of a thread
	RF     [][2]int     `json:"rf"` // write -> the read that reads from it
	CO     [][2]int     `json:"co"` // coherence order (transitively closed), per location
	FR     [][2]int     `json:"fr"` // from-read: read -> each write coherence-after the one it read
	SW     [][2]int     `json:"sw"` // synchronizes-with (§8.9.4)
}

// GraphEvent is one event of an ExecGraph.
type GraphEvent struct {
	ID          int    `json:"id"`
	Thread      string `json:"thread"`          // "init" for initial writes
	Where       string `json:"where,omitempty"` // the thread's place in the scope tree: "cta 0, cluster 0, gpu 0"
	Instruction string `json:"instruction"`
	Action      string `json:"action"` // "W x=1", "R x=0", "F", "B", "arrive bar", "wait bar"
	Sem         string `json:"sem,omitempty"`
	Scope       string `json:"scope,omitempty"`
	Proxy       string `json:"proxy,omitempty"` // when not the generic proxy
	Async       bool   `json:"async,omitempty"` // part of an asynchronous operation, outside program order
}

// Graph returns x as a graph.
func (x *Execution) Graph(prog *Program) *ExecGraph {
	g := &ExecGraph{PO: [][2]int{}, RF: [][2]int{}, CO: [][2]int{}, FR: [][2]int{}, SW: [][2]int{}}
	last := map[int]int{} // thread -> its last event outside asynchronous operations
	for i := range x.Events {
		e := &x.Events[i]
		ge := GraphEvent{ID: i, Thread: "init", Instruction: x.describe(prog, i), Action: eventAction(prog, e, x.Values[i]), Async: e.async}
		if e.Thread >= 0 {
			ge.Thread = prog.Threads[e.Thread].Name
			ge.Where = prog.Threads[e.Thread].where()
			if e.Kind != EvBarrier && e.Kind != EvArrive && e.Kind != EvWait {
				ge.Sem = e.Sem.String()
			}
			ge.Scope = e.Scope.String()
			if e.Proxy != Generic {
				ge.Proxy = e.Proxy.String()
			}
			if !e.async {
				if p, ok := last[e.Thread]; ok {
					g.PO = append(g.PO, [2]int{p, i})
				}
				last[e.Thread] = i
			}
		}
		g.Events = append(g.Events, ge)
		if x.RF[i] >= 0 {
			g.RF = append(g.RF, [2]int{x.RF[i], i})
		}
	}
	g.CO = closure(x.CO)
	for _, rf := range g.RF {
		for _, co := range g.CO {
			if co[0] == rf[0] {
				g.FR = append(g.FR, [2]int{rf[1], co[1]})
			}
		}
	}
	sortEdges(g.FR)
	g.SW = append(g.SW, x.SW...)
	return g
}

// closure returns the transitive closure of edges, sorted.
func closure(edges [][2]int) [][2]int {
	has := map[[2]int]bool{}
	out := [][2]int{}
	add := func(e [2]int) bool {
		if has[e] {
			return false
		}
		has[e] = true
		out = append(out, e)
		return true
	}
	for _, e := range edges {
		add(e)
	}
	for changed := true; changed; {
		changed = false
		for _, a := range out {
			for _, b := range out {
				if a[1] == b[0] && add([2]int{a[0], b[1]}) {
					changed = true
				}
			}
		}
	}
	sortEdges(out)
	return out
}

func sortEdges(es [][2]int) {
	sort.Slice(es, func(i, j int) bool { return es[i][0] < es[j][0] || es[i][0] == es[j][0] && es[i][1] < es[j][1] })
}

// immediate returns the edges of an order that no third event splits.
func immediate(edges [][2]int) [][2]int {
	has := map[[2]int]bool{}
	for _, e := range edges {
		has[e] = true
	}
	var out [][2]int
	for _, e := range edges {
		split := false
		for _, f := range edges {
			if f[0] == e[0] && f[1] != e[1] && has[[2]int{f[1], e[1]}] {
				split = true
				break
			}
		}
		if !split {
			out = append(out, e)
		}
	}
	return out
}

// Edge colours of the relations, as herd7 draws them.
var relColors = []struct{ name, color string }{
	{"po", "black"}, {"rf", "red"}, {"co", "blue"}, {"fr", "darkorange"}, {"sw", "darkgreen"},
}

// WriteDot writes g as a Graphviz cluster named title inside a digraph
// the caller opens and closes; prefix keeps its node names apart from
// other clusters'. Threads are nested clusters, initial writes sit on top,
// and co and fr show their immediate edges only (the rest follow by
// transitivity and by fr;co).
func (g *ExecGraph) WriteDot(w io.Writer, prefix, title string) {
	fmt.Fprintf(w, "  subgraph cluster_%s {\n    label=%s; fontname=\"Helvetica-Bold\"; style=rounded;\n", prefix, DotQuote(title))
	var threads []string
	byThread := map[string][]int{}
	where := map[string]string{}
	for _, e := range g.Events {
		if _, ok := byThread[e.Thread]; !ok {
			threads = append(threads, e.Thread)
		}
		byThread[e.Thread] = append(byThread[e.Thread], e.ID)
		where[e.Thread] = e.Where
	}
	for ti, th := range threads {
		fmt.Fprintf(w, "    subgraph cluster_%s_t%d {\n      label=%s; style=dashed;\n", prefix, ti, DotQuote(threadTitle(th, where[th])))
		for _, id := range byThread[th] {
			fmt.Fprintf(w, "      %s_e%d [shape=box, style=rounded, fontname=\"Helvetica\", fontsize=11, label=%s];\n", prefix, id, DotQuote(g.eventLabel(id)))
		}
		fmt.Fprintf(w, "    }\n")
	}
	rels := map[string][][2]int{"po": g.PO, "rf": g.RF, "co": immediate(g.CO), "fr": immediateFR(g.FR, g.CO), "sw": g.SW}
	for _, rc := range relColors {
		for _, e := range rels[rc.name] {
			attrs := fmt.Sprintf("color=%s, fontcolor=%s, label=%q, fontsize=10", rc.color, rc.color, rc.name)
			if rc.name == "po" {
				attrs += ", weight=10"
			} else {
				attrs += ", constraint=false"
			}
			fmt.Fprintf(w, "    %s_e%d -> %s_e%d [%s];\n", prefix, e[0], prefix, e[1], attrs)
		}
	}
	fmt.Fprintf(w, "  }\n")
}

// immediateFR keeps the fr edges to a write that no other fr target of
// the same read precedes in co.
func immediateFR(fr, co [][2]int) [][2]int {
	has := map[[2]int]bool{}
	for _, e := range co {
		has[e] = true
	}
	var out [][2]int
	for _, e := range fr {
		first := true
		for _, f := range fr {
			if f[0] == e[0] && has[[2]int{f[1], e[1]}] {
				first = false
				break
			}
		}
		if first {
			out = append(out, e)
		}
	}
	return out
}

func threadTitle(th, where string) string {
	if th == "init" {
		return "initial state"
	}
	return "thread " + th + "\n" + where
}

// where names the thread's CTA, cluster and GPU.
func (t *Thread) where() string {
	if t.Cluster < 0 {
		return fmt.Sprintf("cta %d, gpu %d", t.CTA, t.GPU)
	}
	return fmt.Sprintf("cta %d, cluster %d, gpu %d", t.CTA, t.Cluster, t.GPU)
}

// eventLabel is herd7's "a: Wx=1" with the instruction and its
// qualifiers below.
func (g *ExecGraph) eventLabel(id int) string {
	e := &g.Events[id]
	label := fmt.Sprintf("e%d: %s", id, e.Action)
	if e.Thread == "init" {
		return label
	}
	label += "\n" + e.Instruction
	var q []string
	for _, s := range []string{e.Sem, e.Scope, e.Proxy} {
		if s != "" {
			q = append(q, s)
		}
	}
	if e.Async {
		q = append(q, "async")
	}
	if len(q) > 0 {
		label += "\n(" + strings.Join(q, ", ") + ")"
	}
	return label
}

// DotQuote quotes s as a DOT string.
func DotQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}
