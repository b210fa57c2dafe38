package output

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/tlc"
	"github.com/modelfuzz/modelfuzz/tlc/check"
)

// TestProgressLine checks TLC's progress line: counts with thousands
// separators and the rates per minute since the last line.
func TestProgressLine(t *testing.T) {
	var b bytes.Buffer
	p := &Printer{w: &b}
	p.last.at = time.Now().Add(-30 * time.Second)
	p.Progress(check.Progress{Depth: 7, Generated: 12000, Distinct: 3000, Queue: 1500})
	line := b.String()
	assert.Regexp(t, `^Progress\(7\) at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d: 12,000 states generated \([\d,]+ s/min\), 3,000 distinct states found \([\d,]+ ds/min\), 1,500 states left on queue.\n$`, line)
}

// count is a spec of 6 states whose two actions reach 2 and 3 of them.
const count = `---- MODULE Count ----
EXTENDS Naturals
VARIABLES x, y
Init == x = 0 /\ y = 0
IncX == x < 2 /\ x' = x + 1 /\ y' = y
IncY == y < 1 /\ y' = y + 1 /\ x' = x
Next == IncX \/ IncY
Small == x + y < 3
====
`

// load compiles count with cfg in a new directory.
func load(t *testing.T, cfg string) *tlc.Model {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "Count.tla"), []byte(count), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "Count.cfg"), []byte(cfg), 0o644))
	m, err := tlc.Load(tlc.Spec{Module: filepath.Join(dir, "Count.tla")})
	require.NoError(t, err)
	return m
}

// A violation prints TLC's numbered trace, each step under the action
// that took it, and the counts; --json the same as one object.
func TestViolationTrace(t *testing.T) {
	m := load(t, "INIT Init\nNEXT Next\nINVARIANT Small\n")
	res := tlc.Check(m, tlc.CheckOptions{Workers: 1})
	require.Equal(t, "invariant", res.Result)
	var b bytes.Buffer
	p := New(&b, time.Now(), Options{})
	p.SetModel(m)
	p.Result(res, 0)
	out := b.String()
	assert.True(t, strings.HasPrefix(out, "Error: Invariant Small is violated.\nError: The behavior up to this point is:\nState 1: <Initial predicate>\n/\\ x = 0\n/\\ y = 0\n\nState 2: <IncX line 5, col 9 to line 5, col 37 of module Count>\n"), out)
	assert.Contains(t, out, "\nThe depth of the complete state graph search is 4.\nFinished in ")

	b.Reset()
	p = New(&b, time.Now(), Options{JSON: true})
	p.SetModel(m)
	p.ResultJSON(res)
	assert.True(t, strings.HasPrefix(b.String(), `{"result":"invariant","distinct_states":`), b.String())
	assert.Contains(t, b.String(), `{"action":"IncX","location":"line 5, col 9 to line 5, col 37 of module Count","vars":{"x":1,"y":0}}`)
}

// TestCoverageReport checks -coverage's report: per variable, the
// distinct values of the states successors found; per action, the distinct
// states it found and the states it generated, in the order of the
// definitions.
func TestCoverageReport(t *testing.T) {
	m := load(t, "INIT Init\nNEXT Next\nCHECK_DEADLOCK FALSE\n")
	cov := NewCoverage(m) // on a model loaded to be compiled: NewCoverage turns that off
	res := tlc.Check(m, tlc.CheckOptions{Workers: 1, Step: cov.Step})
	require.Equal(t, "success", res.Result)
	var b bytes.Buffer
	cov.Print(&b)
	lines := strings.SplitAfterN(b.String(), "\n", 2)
	assert.True(t, strings.HasPrefix(lines[0], "The coverage statistics at "), lines[0])
	assert.Equal(t, "<x line 3, col 11 to line 3, col 11 of module Count>: 3\n"+
		"<y line 3, col 14 to line 3, col 14 of module Count>: 2\n"+
		"<Init line 4, col 1 to line 4, col 4 of module Count>: 1:1\n"+
		"  line 4, col 9 to line 4, col 22 of module Count: 1\n"+
		"<IncX line 5, col 1 to line 5, col 4 of module Count>: 2:4\n"+
		"  line 5, col 9 to line 5, col 13 of module Count: 4\n"+
		"  |line 5, col 9 to line 5, col 9 of module Count: 6\n"+
		"  line 5, col 18 to line 5, col 27 of module Count: 4\n"+
		"  line 5, col 32 to line 5, col 37 of module Count: 4\n"+
		"<IncY line 6, col 1 to line 6, col 4 of module Count>: 3:3\n"+
		"  line 6, col 9 to line 6, col 13 of module Count: 3\n"+
		"  |line 6, col 9 to line 6, col 9 of module Count: 6\n"+
		"  line 6, col 18 to line 6, col 27 of module Count: 3\n"+
		"  line 6, col 32 to line 6, col 37 of module Count: 3\n"+
		"End of statistics.\n", lines[1], "TLC's report (tla2tools.jar at cc6b616, -workers 1)")
}

// TestStateDump checks -dump (each distinct state, numbered) and -dump
// dot (a node per distinct state, an edge per transition).
func TestStateDump(t *testing.T) {
	m := load(t, "INIT Init\nNEXT Next\nCHECK_DEADLOCK FALSE\n")
	dir := t.TempDir()
	states, err := NewStateDump(filepath.Join(dir, "states"), false, "", m)
	require.NoError(t, err)
	graph, err := NewStateDump(filepath.Join(dir, "graph"), true, "actionlabels,colorize", m)
	require.NoError(t, err)
	res := tlc.Check(m, tlc.CheckOptions{Workers: 1, Step: func(tr check.Transition) { states.Step(tr); graph.Step(tr) }})
	require.Equal(t, "success", res.Result)
	require.NoError(t, states.Close())
	require.NoError(t, graph.Close())

	b, err := os.ReadFile(filepath.Join(dir, "states.dump"))
	require.NoError(t, err)
	assert.Equal(t, 6, strings.Count(string(b), "State "), "six distinct states")
	assert.True(t, strings.HasPrefix(string(b), "State 1:\n/\\ x = 0\n/\\ y = 0\n\nState 2:\n"), string(b))

	b, err = os.ReadFile(filepath.Join(dir, "graph.dot"))
	require.NoError(t, err)
	dot := string(b)
	assert.True(t, strings.HasPrefix(dot, "strict digraph DiskGraph {\n"), dot)
	assert.Equal(t, 1, strings.Count(dot, ",style = filled]"), "one initial state")
	assert.Equal(t, 7, strings.Count(dot, " -> "), "seven steps")
	assert.Contains(t, dot, `[label="IncX",color="1",fontcolor="1"];`)
	assert.Contains(t, dot, "subgraph cluster_legend {")
}
