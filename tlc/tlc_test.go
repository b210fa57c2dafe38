package tlc_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/tlc"
)

const counter = `---- MODULE Counter ----
EXTENDS Naturals
CONSTANT N
VARIABLE x
Init == x = 0
Next == x < N /\ x' = x + 1
Small == x <= 2
Parity == x % 2
====
`

// write puts files into a new directory and returns it.
func write(t *testing.T, files map[string]string) string {
	dir := t.TempDir()
	for name, text := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	return dir
}

// A spec loads from its file or from its source, with the cfg beside it
// or given, and constants given replace the cfg's.
func TestLoadFileOrSource(t *testing.T) {
	dir := write(t, map[string]string{"Counter.tla": counter, "Counter.cfg": "CONSTANT N = 3\nINIT Init\nNEXT Next\nCHECK_DEADLOCK FALSE\n"})
	spec := filepath.Join(dir, "Counter.tla")
	m, err := tlc.Load(tlc.Spec{Module: spec})
	require.NoError(t, err)
	res := tlc.Check(m, tlc.CheckOptions{Workers: 1})
	require.Equal(t, "success", res.Result)
	require.EqualValues(t, 4, res.Distinct)

	m, err = tlc.Load(tlc.Spec{Module: "Counter.tla", Source: []byte(counter), Config: "c.cfg",
		ConfigSource: []byte("CONSTANT N = 3\nINIT Init\nNEXT Next\nINVARIANT Small\n"), Consts: []string{"N = 5"}})
	require.NoError(t, err)
	res = tlc.Check(m, tlc.CheckOptions{Workers: 1})
	require.Equal(t, "invariant", res.Result, "N = 5 reaches x = 3")
	require.Equal(t, 12, res.ExitCode)
}

// Load's errors say what TLC's exit code says: the spec, or the cfg.
func TestLoadErrors(t *testing.T) {
	dir := write(t, map[string]string{"Bad.tla": "---- MODULE Bad ----\nVARIABLE x\nInit == x = \n====\n", "Bad.cfg": "INIT Init\n",
		"Counter.tla": counter, "Counter.cfg": "INIT Init\nNEXT\n"})
	_, err := tlc.Load(tlc.Spec{Module: filepath.Join(dir, "Bad.tla")})
	var le *tlc.LoadError
	require.True(t, errors.As(err, &le), "%v", err)
	code, res := tlc.LoadFailure(err)
	require.Equal(t, 150, code)
	require.Equal(t, "parse-error", res)

	_, err = tlc.Load(tlc.Spec{Module: filepath.Join(dir, "Counter.tla")})
	var ce *tlc.ConfigError
	require.True(t, errors.As(err, &ce), "%v", err)
	code, _ = tlc.LoadFailure(err)
	require.Equal(t, 151, code)

	_, err = tlc.Load(tlc.Spec{Module: filepath.Join(dir, "Counter.tla"), ConfigSource: []byte("CONSTANT N = 1\nINIT Init\nNEXT Next\n"), Consts: []string{"N"}})
	require.ErrorContains(t, err, `--const "N": want NAME=VALUE`)
	require.True(t, errors.As(err, &ce), "a constant given is part of the cfg")
	require.Error(t, tlc.Parse(tlc.Spec{Module: filepath.Join(dir, "Bad.tla")}))
}

// The VIEW is the cfg's, another definition, or none; a module that
// extends the model may define more of it, and declares no variable.
func TestViewAndExtend(t *testing.T) {
	dir := write(t, map[string]string{"Counter.tla": counter, "Counter.cfg": "CONSTANT N = 3\nINIT Init\nNEXT Next\nVIEW Parity\nCHECK_DEADLOCK FALSE\n",
		"More.tla":  "---- MODULE More ----\nEXTENDS Counter\nDouble == 2 * x\n====\n",
		"Var.tla":   "---- MODULE Var ----\nEXTENDS Counter\nVARIABLE y\n====\n",
		"Other.tla": "---- MODULE Other ----\nOp == 1\n====\n"})
	spec := tlc.Spec{Module: filepath.Join(dir, "Counter.tla")}
	v, err := tlc.ViewName(spec)
	require.NoError(t, err)
	require.Equal(t, "Parity", v)
	m, err := tlc.Load(spec)
	require.NoError(t, err)
	require.EqualValues(t, 2, tlc.Explore(m, tlc.CheckOptions{Workers: 1}).Distinct, "x % 2 takes two values")

	noView := spec
	noView.NoView = true
	v, err = tlc.ViewName(noView)
	require.NoError(t, err)
	require.Empty(t, v)

	more := spec
	more.Extend, more.View = filepath.Join(dir, "More.tla"), "Double"
	m, err = tlc.Load(more)
	require.NoError(t, err)
	require.EqualValues(t, 4, tlc.Explore(m, tlc.CheckOptions{Workers: 1}).Distinct, "2 * x takes four values on 0..3")

	more.Extend = filepath.Join(dir, "Var.tla")
	_, err = tlc.Load(more)
	require.ErrorContains(t, err, "declares a variable")
	more.Extend = filepath.Join(dir, "Other.tla")
	_, err = tlc.Load(more)
	require.ErrorContains(t, err, "does not extend the model Counter")
}

const traceSpec = `---- MODULE Trace ----
EXTENDS Naturals, Sequences, Json, IOUtils
VARIABLE l, x
TraceLog == ndJsonDeserialize(IOEnv.JSON)
Init == l = 1 /\ x = 0
Next == l <= Len(TraceLog) /\ x' = TraceLog[l].x /\ x' = x + 1 /\ l' = l + 1
====
`

// A trace spec reads the trace in the file given; the trace is matched
// when a behaviour consumes all of it, and the states it reaches are
// visited.
func TestValidateTrace(t *testing.T) {
	dir := write(t, map[string]string{"Trace.tla": traceSpec, "Trace.cfg": "INIT Init\nNEXT Next\nCHECK_DEADLOCK FALSE\n",
		"good.ndjson": "{\"x\":1}\n{\"x\":2}\n", "bad.ndjson": "{\"x\":1}\n{\"x\":3}\n"})
	ts := tlc.TraceSpec{Spec: filepath.Join(dir, "Trace.tla")}
	for _, c := range []struct {
		trace    string
		matched  bool
		consumed int
	}{{"good.ndjson", true, 2}, {"bad.ndjson", false, 1}} {
		m, err := ts.Load(filepath.Join(dir, c.trace))
		require.NoError(t, err)
		visited := 0
		tr, err := tlc.ValidateTrace(m, tlc.CheckOptions{Workers: 1, Visit: func([]tlc.Value, func() []tlc.State) { visited++ }})
		require.NoError(t, err)
		require.Equal(t, c.matched, tr.Matched, c.trace)
		require.Equal(t, c.consumed, tr.Consumed, c.trace)
		require.Equal(t, c.consumed+1, visited, c.trace)
	}
	// The cfg is read first: a broken cfg is named even when the spec is
	// broken too.
	broken := write(t, map[string]string{"T.tla": "---- MODULE T ----\nInit == \n====\n", "T.cfg": "INIT\n"})
	_, err := tlc.TraceSpec{Spec: filepath.Join(broken, "T.tla")}.Load(filepath.Join(dir, "good.ndjson"))
	var ce *tlc.ConfigError
	require.True(t, errors.As(err, &ce), "%v", err)
}

func TestSourceLine(t *testing.T) {
	dir := write(t, map[string]string{"Counter.tla": counter})
	require.Equal(t, `Next == x < N /\ x' = x + 1`, tlc.SourceLine(filepath.Join(dir, "Counter.tla"), 6))
	require.Empty(t, tlc.SourceLine(filepath.Join(dir, "Counter.tla"), 100))
	require.Empty(t, tlc.SourceLine(filepath.Join(dir, "None.tla"), 1))
}
