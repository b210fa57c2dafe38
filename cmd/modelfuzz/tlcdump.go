package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelfuzz/modelfuzz/tlc/check"
	"github.com/modelfuzz/modelfuzz/tlc/eval"
	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// coverage counts, per action of TLC's split of the next-state relation,
// the distinct states it found and the states it generated (TLC's
// -coverage, whose report lists each action as "<Name LOCATION>: D:G").
type coverage struct {
	m                        *eval.Model
	distinct, generated      []atomic.Int64
	initDistinct, initStates atomic.Int64
}

func newCoverage(m *eval.Model) *coverage {
	n := len(m.NextActions())
	return &coverage{m: m, distinct: make([]atomic.Int64, n), generated: make([]atomic.Int64, n)}
}

func (c *coverage) step(action int, fresh bool) {
	if action < 0 {
		c.initStates.Add(1)
		if fresh {
			c.initDistinct.Add(1)
		}
		return
	}
	c.generated[action].Add(1)
	if fresh {
		c.distinct[action].Add(1)
	}
}

// print writes the report. Actions that differ only in their parameters'
// values are one line, as in TLC: located by the definition's left-hand
// side, followed, when the action is one disjunct of the definition, by
// the disjunct's extent "(line col line col)".
func (c *coverage) print(w io.Writer) {
	fmt.Fprintf(w, "The coverage statistics at %s (see https://explain.tlapl.us/module-coverage-statistics for how to interpret the following statistics).\n", time.Now().Format(tlcDate))
	if name, decl := c.m.InitLocation(); name != "" {
		fmt.Fprintf(w, "<%s %s>: %d:%d\n", name, decl, c.initDistinct.Load(), c.initStates.Load())
	}
	type line struct {
		text                string
		decl, loc           eval.Location
		distinct, generated int64
	}
	var lines []*line
	byText := map[string]*line{}
	for i, a := range c.m.NextActions() {
		var text string
		switch {
		case a.Name == "":
			text = fmt.Sprintf("<Action %s>", a.Loc)
		case a.Whole:
			text = fmt.Sprintf("<%s %s>", a.Name, a.Decl)
		default:
			text = fmt.Sprintf("<%s %s (%d %d %d %d)>", a.Name, a.Decl, a.Loc.BeginLine, a.Loc.BeginCol, a.Loc.EndLine, a.Loc.EndCol)
		}
		l := byText[text]
		if l == nil {
			l = &line{text: text, decl: a.Decl, loc: a.Loc}
			byText[text] = l
			lines = append(lines, l)
		}
		l.distinct += c.distinct[i].Load()
		l.generated += c.generated[i].Load()
	}
	// In the order of the definitions in the source, as TLC.
	sort.SliceStable(lines, func(i, j int) bool {
		a, b := lines[i], lines[j]
		if a.decl.Module != b.decl.Module {
			return a.decl.Module < b.decl.Module
		}
		if a.decl.BeginLine != b.decl.BeginLine {
			return a.decl.BeginLine < b.decl.BeginLine
		}
		if a.loc.BeginLine != b.loc.BeginLine {
			return a.loc.BeginLine < b.loc.BeginLine
		}
		return a.loc.BeginCol < b.loc.BeginCol
	})
	for _, l := range lines {
		fmt.Fprintf(w, "%s: %d:%d\n", l.text, l.distinct, l.generated)
	}
	fmt.Fprintln(w, "End of statistics.")
}

// stateDump writes the states a check finds to a file: as TLC's -dump
// FILE (each distinct state, numbered), or as its -dump dot FILE (the
// state graph in GraphViz's language: a node per distinct state, labelled
// with its variables, the initial ones filled; an edge per transition,
// labelled with its action under actionlabels; one rank per level).
type stateDump struct {
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

func newStateDump(path string, dot bool, options string, m *eval.Model) (*stateDump, error) {
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
	d := &stateDump{f: f, w: bufio.NewWriter(f), dot: dot, m: m, level: map[uint64]int{}, ranks: map[int][]uint64{}, colors: map[string]int{}}
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

func (d *stateDump) step(from, to []value.Value, action int, fresh bool) {
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

func (d *stateDump) rank(fp uint64, level int) {
	d.level[fp] = level
	d.ranks[level] = append(d.ranks[level], fp)
}

func (d *stateDump) close() error {
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
