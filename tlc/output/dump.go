package output

import (
	"bufio"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/modelfuzz/modelfuzz/tlc/check"
	"github.com/modelfuzz/modelfuzz/tlc/eval"
	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// StateDump writes the states a check finds to a file: as TLC's -dump
// FILE (each distinct state, numbered), or as its -dump dot FILE (the
// state graph in GraphViz's language: a node per distinct state, labelled
// with its variables, the initial ones filled; an edge per transition,
// labelled with its action under actionlabels; one rank per level).
type StateDump struct {
	f      *os.File
	w      *bufio.Writer
	dot    bool
	labels bool // actionlabels
	color  bool // colorize
	m      *eval.Model

	mu     sync.Mutex
	n      int
	level  map[uint64]int
	ranks  map[int][]uint64
	colors map[string]int // action name -> color, in order seen
	names  []string
}

// NewStateDump creates the file of a dump: path, with .dump (or .dot) added
// as TLC does; options are TLC's -dump dot options, comma-separated
// (actionlabels, colorize).
func NewStateDump(path string, dot bool, options string, m *eval.Model) (*StateDump, error) {
	ext := ".dump"
	if dot {
		ext = ".dot"
	}
	if !strings.HasSuffix(path, ext) {
		path += ext // as TLC
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	d := &StateDump{f: f, w: bufio.NewWriter(f), dot: dot, m: m, level: map[uint64]int{}, ranks: map[int][]uint64{}, colors: map[string]int{}}
	for _, o := range strings.Split(options, ",") {
		d.labels = d.labels || o == "actionlabels"
		d.color = d.color || o == "colorize"
	}
	if dot {
		fmt.Fprintln(d.w, "strict digraph DiskGraph {")
		fmt.Fprintln(d.w, "node [shape=box,style=rounded]")
		if d.color {
			fmt.Fprintln(d.w, `edge [colorscheme="paired12"]`)
		}
		fmt.Fprintln(d.w, "nodesep=0.35;")
		fmt.Fprintln(d.w, "subgraph cluster_graph {")
		fmt.Fprintln(d.w, `color="white";`)
	}
	return d, nil
}

// stateText is a state as TLC prints it, variables in alphabetical order.
func stateText(vars []string, s []value.Value) string {
	names, vals := sortedVars(check.State{Vars: vars, Values: s})
	var b strings.Builder
	for i, n := range names {
		if len(names) == 1 {
			fmt.Fprintf(&b, "%s = %s\n", n, vals[i])
		} else {
			fmt.Fprintf(&b, "/\\ %s = %s\n", n, vals[i])
		}
	}
	return b.String()
}

// dotText escapes a state for a dot label, as TLC does.
func dotText(vars []string, s []value.Value) string {
	t := strings.TrimSpace(stateText(vars, s))
	t = strings.ReplaceAll(t, `\`, `\\`)
	t = strings.ReplaceAll(t, `"`, `\"`)
	return strings.ReplaceAll(t, "\n", `\n`)
}

// Step writes a state the check generated (check.Options.Step), unless
// the constraints cut it: as TLC's dump without "constrained".
func (d *StateDump) Step(t check.Transition) {
	if t.Cut {
		return
	}
	from, to, action, fresh := t.From, t.To, t.Action, t.Fresh
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.dot {
		if fresh {
			d.n++
			fmt.Fprintf(d.w, "State %d:\n%s\n", d.n, stateText(d.m.Vars, to))
		}
		return
	}
	tfp := value.FingerprintState(to)
	if from == nil {
		if fresh {
			fmt.Fprintf(d.w, "%d [label=\"%s\",style = filled]\n", int64(tfp), dotText(d.m.Vars, to))
			d.rank(tfp, 1)
		}
		return
	}
	ffp := value.FingerprintState(from)
	fmt.Fprintf(d.w, "%d -> %d", int64(ffp), int64(tfp))
	if d.labels || d.color {
		a := d.m.NextActions()[action]
		label, color := "", "black"
		if d.labels {
			label = strings.ReplaceAll(strings.ReplaceAll(a.Signature(), `\`, `\\`), `"`, `\"`)
		}
		if d.color {
			c, ok := d.colors[a.Name]
			if !ok {
				c = len(d.colors)%12 + 1
				d.colors[a.Name] = c
				d.names = append(d.names, a.Name)
			}
			color = fmt.Sprint(c)
		}
		fmt.Fprintf(d.w, ` [label="%s",color="%s",fontcolor="%s"]`, label, color, color)
	}
	fmt.Fprintln(d.w, ";")
	if fresh {
		text := dotText(d.m.Vars, to)
		fmt.Fprintf(d.w, "%d [label=\"%s\",tooltip=\"%s\"];\n", int64(tfp), text, text)
		d.rank(tfp, d.level[ffp]+1)
	}
}

func (d *StateDump) rank(fp uint64, level int) {
	d.level[fp] = level
	d.ranks[level] = append(d.ranks[level], fp)
}

// Close ends the file (the dot graph's ranks and legend) and closes it.
func (d *StateDump) Close() error {
	if d.dot {
		levels := make([]int, 0, len(d.ranks))
		for l := range d.ranks {
			levels = append(levels, l)
		}
		sort.Ints(levels)
		for _, l := range levels {
			fmt.Fprint(d.w, "{rank = same; ")
			for _, fp := range d.ranks[l] {
				fmt.Fprintf(d.w, "%d;", int64(fp))
			}
			fmt.Fprintln(d.w, "}")
		}
		fmt.Fprintln(d.w, "}")
		if d.color && len(d.names) > 0 {
			fmt.Fprint(d.w, "subgraph cluster_legend {graph[style=bold];label = \"Next State Actions\" style=\"solid\"\n")
			fmt.Fprint(d.w, "node [ labeljust=\"l\",colorscheme=\"paired12\",style=filled,shape=record ]\n")
			for _, n := range d.names {
				fmt.Fprintf(d.w, "%s [label=\"%s\",fillcolor=%d]\n", strings.ReplaceAll(n, "!", ":"), n, d.colors[n])
			}
			fmt.Fprintln(d.w, "}")
		}
		fmt.Fprintln(d.w, "}")
	}
	if err := d.w.Flush(); err != nil {
		d.f.Close()
		return err
	}
	return d.f.Close()
}
