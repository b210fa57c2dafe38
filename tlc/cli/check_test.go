package cli

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/tlc/check"
)

// updateTLC rewrites testdata/*.golden: go test ./tlc/cli/ -run
// TestTLCCheckGolden -update-tlc. Review every change against TLC's
// output (docs/benchmarks.md, "TLC's output", says where ours differs).
var updateTLC = flag.Bool("update-tlc", false, "rewrite testdata/*.golden")

const tlcData = "testdata"

// stable drops the lines of TLC's output that change from run to run:
// the banner (version, pid, cores), start and end times.
func stable(out string) string {
	var keep []string
	for _, l := range strings.SplitAfter(out, "\n") {
		switch {
		case strings.HasPrefix(l, "modelfuzz tlc check, version"), strings.HasPrefix(l, "Running "),
			strings.HasPrefix(l, "Starting... ("), strings.HasPrefix(l, "Finished in "),
			strings.HasPrefix(l, "The coverage statistics at "), strings.HasPrefix(l, "Progress("),
			strings.HasPrefix(l, "Trace exploration spec path: "):
			continue
		case strings.HasPrefix(l, "Finished computing initial states: "):
			l = l[:strings.LastIndex(l, " at ")] + " at DATE.\n"
		}
		keep = append(keep, l)
	}
	return strings.Join(keep, "")
}

func TestTranslateTLCArgs(t *testing.T) {
	flags := newCheckCmd().Flags()
	for _, c := range []struct {
		in, want string
	}{
		{"-workers 2 -deadlock -simulate -depth 50 Spec", "--workers 2 --deadlock --simulate --depth 50 Spec"},
		{"-simulate num=10 -seed -3 Spec", "--simulate --num=10 --seed -3 Spec"},
		{"Spec -workers auto -config MC.cfg", "Spec --workers auto --config MC.cfg"},
		{"-dump dot,actionlabels,colorize g.dot Spec", "--dump-dot=g.dot --dot-options=actionlabels,colorize Spec"},
		{"-dump dot g Spec", "--dump-dot=g Spec"},
		{"-dump states Spec", "--dump states Spec"},
		{"-coverage 1 -continue -difftrace -noTE Spec", "--coverage 1 --continue --difftrace --noGenerateSpecTE Spec"},
		{"-note Spec", "--noGenerateSpecTE Spec"},
		{"--workers=3 -json --const N=2 Spec", "--workers=3 --json --const N=2 Spec"},
		{"-terse -tool Spec", "--terse --tool Spec"},
		{"-h", "--help"},
	} {
		got, err := translateTLCArgs(strings.Fields(c.in), flags)
		require.NoError(t, err, c.in)
		assert.Equal(t, c.want, strings.Join(got, " "), c.in)
	}
	for _, c := range []struct{ in, err string }{
		{"-debug Spec", "option -debug is not supported by modelfuzz tlc check"},
		{"-lncheck final Spec", "option -lncheck is not supported"},
		{"-bogus Spec", "unknown option -bogus"},
		{"-simulate file=x,num=3 Spec", "-simulate file=x: only num=N is supported"},
		{"Spec -config", "option -config needs 1 argument(s)"},
	} {
		_, err := translateTLCArgs(strings.Fields(c.in), flags)
		require.Error(t, err, c.in)
		assert.Contains(t, err.Error(), c.err, c.in)
		var ee *ExitError
		require.ErrorAs(t, err, &ee)
		assert.Equal(t, 1, ee.Code, "TLC exits 1 on a command line it refuses")
	}
}

// TestTLCCheckGolden checks the output of `tlc check` on a spec of ours
// against testdata/tlc/NAME.golden: trace steps named by their action and
// located as TLC does, ALIAS, -difftrace, -coverage, -continue.
func TestTLCCheckGolden(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		code int
	}{
		{"trace", []string{"-workers", "1", "Commit"}, 12},
		{"alias-difftrace", []string{"-workers", "1", "-difftrace", "-config", "CommitAlias.cfg", "Commit.tla"}, 12},
		{"coverage", []string{"-workers", "1", "-coverage", "0", "-config", "CommitAll", "Commit"}, 0},
		{"continue", []string{"-workers", "1", "-continue", "-config", "CommitContinue", "Commit"}, 12},
		{"deadlock-alias", []string{"-workers", "1", "-config", "CommitDeadlock.cfg", "Commit"}, 11},
		{"const", []string{"-workers", "1", "--const", "RM = {r1}", "Commit"}, 12},
		{"view", []string{"-workers", "1", "-view", "-config", "CommitView", "Commit"}, 12},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := tlcIn(t, tlcData, append([]string{"tlc", "check"}, c.args...)...)
			assert.Equal(t, c.code, res.code, res.stderr)
			got := stable(res.stdout)
			path := filepath.Join(tlcData, c.name+".golden")
			if *updateTLC {
				require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
				return
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, string(want), got)
		})
	}
}

// TestTLCCheckJSONTrace checks --json: each trace state carries its action
// and location, and values are JSON values.
func TestTLCCheckJSONTrace(t *testing.T) {
	res := tlcIn(t, tlcData, "tlc", "check", "--workers", "1", "--json", "Commit")
	require.Equal(t, 12, res.code, res.stderr)
	var out struct {
		Result string
		Trace  []struct {
			Action, Location string
			Vars             map[string]any
		}
	}
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &out), res.stdout)
	assert.Equal(t, "invariant", out.Result)
	require.Len(t, out.Trace, 4)
	assert.Equal(t, "Initial predicate", out.Trace[0].Action)
	assert.Equal(t, "", out.Trace[0].Location)
	assert.Equal(t, "Prepare(r1)", out.Trace[1].Action)
	assert.Equal(t, "line 16, col 3 to line 19, col 22 of module Commit", out.Trace[1].Location)
	assert.Equal(t, "Decide", out.Trace[3].Action)
	assert.Equal(t, map[string]any{"r1": "prepared", "r2": "working"}, out.Trace[1].Vars["rmState"], "a function is an object")
	assert.Equal(t, []any{map[string]any{"rm": "r1", "type": "prepared"}}, out.Trace[1].Vars["msgs"], "a set is an array, a record an object")
	assert.Equal(t, "done", out.Trace[3].Vars["tmState"])
}

// TestTLCCheckExitCodes checks TLC's exit codes, one small spec each.
func TestTLCCheckExitCodes(t *testing.T) {
	dir := t.TempDir()
	spec := func(name, body, cfg string) {
		src := "---- MODULE " + name + " ----\nEXTENDS Naturals, TLC\nVARIABLE x\n" + body + "\n====\n"
		require.NoError(t, os.WriteFile(filepath.Join(dir, name+".tla"), []byte(src), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name+".cfg"), []byte(cfg), 0o644))
	}
	const cfg = "INIT Init\nNEXT Next\n"
	spec("Ok", "Init == x = 0\nNext == (x < 2 /\\ x' = x + 1) \\/ (x = 2 /\\ UNCHANGED x)", cfg)
	spec("Assumption", "ASSUME 1 > 2\nInit == x = 0\nNext == UNCHANGED x", cfg)
	spec("Deadlock", "Init == x = 0\nNext == x < 2 /\\ x' = x + 1", cfg)
	spec("Safety", "Init == x = 0\nNext == x' = (x + 1) % 3\nInv == x < 2", cfg+"INVARIANT Inv\n")
	spec("Assert", "Init == x = 0\nNext == x < 3 /\\ x' = x + 1 /\\ Assert(x < 2, \"too big\")", cfg+"CHECK_DEADLOCK FALSE\n")
	spec("NextEval", "Init == x = 0\nNext == x' = x + (IF x = 2 THEN \"a\" ELSE 1)", cfg)
	spec("InvEval", "Init == x = 0\nNext == x' = (x + 1) % 3\nInv == IF x = 2 THEN \"a\" ELSE TRUE", cfg+"INVARIANT Inv\n")
	spec("Parse", "Init == x = = 0", cfg)
	spec("Config", "Init == x = 0\nNext == UNCHANGED x", "INIT Init\nNEXT NoSuchNext\n")
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"Ok"}, 0},
		{[]string{"Assumption"}, 10},
		{[]string{"Deadlock"}, 11},
		{[]string{"-deadlock", "Deadlock"}, 0},
		{[]string{"Safety"}, 12},
		{[]string{"Assert"}, 14},
		{[]string{"NextEval"}, 75},
		{[]string{"InvEval"}, 76},
		{[]string{"Parse"}, 150},
		{[]string{"Config"}, 151},
		{[]string{"NoSuchSpec"}, 255},
		{[]string{"-bogus", "Ok"}, 1},
		{[]string{"-recover", "states/x", "Ok"}, 153},
		{[]string{"-checkpoint", "30", "Ok"}, 0},
		{[]string{"-checkpoint", "-2", "Ok"}, 1},
		{[]string{"-coverage", "-1", "Ok"}, 1},
		{[]string{"-checkpoint", "0", "-fp", "3", "-cleanup", "-noGenerateSpecTE", "-metadir", filepath.Join(dir, "meta"), "Ok"}, 0},
	} {
		res := tlcIn(t, dir, append([]string{"tlc", "check", "-workers", "1"}, c.args...)...)
		assert.Equal(t, c.code, res.code, "%v: %s%s", c.args, res.stdout, res.stderr)
	}
}

// TestTLCCheckSimulate checks -simulate as a TLC user types it, and that a
// seed gives the same behaviours every time on one worker.
func TestTLCCheckSimulate(t *testing.T) {
	res := tlcIn(t, tlcData, "tlc", "check", "-workers", "2", "-deadlock", "-simulate", "-depth", "50", "Commit")
	require.Equal(t, 12, res.code, res.stdout+res.stderr)
	assert.Contains(t, res.stdout, "Running Random Simulation with seed ")
	assert.Contains(t, res.stdout, "Error: Invariant NotDone is violated.")
	assert.Contains(t, res.stdout, ": <Decide line 22, col 3 to line 25, col 32 of module Commit>\n")

	run := func(seed string) string {
		res := tlcIn(t, tlcData, "tlc", "check", "-workers", "1", "-simulate", "num=30", "-depth", "8", "-seed", seed, "-config", "CommitAll.cfg", "Commit")
		require.Equal(t, 0, res.code, res.stdout+res.stderr)
		return stable(res.stdout)
	}
	one := run("42")
	assert.Contains(t, one, "Simulation using seed 42 and aril 0\nProgress: ")
	assert.Contains(t, one, " states checked, 30 traces generated (trace length: mean=")
	assert.Equal(t, one, run("42"), "the same seed, the same behaviours")

	res = tlcIn(t, tlcData, "tlc", "check", "-workers", "2", "-simulate", "num=5", "-seed", "9", "-json", "-config", "CommitAll", "Commit")
	require.Equal(t, 0, res.code, res.stdout+res.stderr)
	var sim struct{ Seed, Traces int64 }
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &sim))
	assert.Equal(t, int64(9), sim.Seed)
	assert.Equal(t, int64(10), sim.Traces, "num=5 on each of 2 workers, as TLC")

	// A violation found by simulation: the same trace for the same seed.
	viol := func() string {
		res := tlcIn(t, tlcData, "tlc", "check", "-workers", "1", "-simulate", "-seed", "7", "Commit")
		require.Equal(t, 12, res.code, res.stdout+res.stderr)
		return stable(res.stdout)
	}
	assert.Equal(t, viol(), viol())
}

// TestTLCDumpDot checks -dump dot: a node per distinct state (the initial
// one filled), an edge per transition labelled with its action.
func TestTLCDumpDot(t *testing.T) {
	dir := t.TempDir()
	res := tlcIn(t, tlcData, "tlc", "check", "-workers", "1", "-dump", "dot,actionlabels", filepath.Join(dir, "graph"), "-config", "CommitAll", "Commit")
	require.Equal(t, 0, res.code, res.stdout+res.stderr)
	b, err := os.ReadFile(filepath.Join(dir, "graph.dot"))
	require.NoError(t, err)
	dot := string(b)
	assert.True(t, strings.HasPrefix(dot, "strict digraph DiskGraph {\n"), dot)
	assert.True(t, strings.HasSuffix(dot, "}\n}\n"), dot)
	assert.Equal(t, 1, strings.Count(dot, ",style = filled]"), "one initial state")
	assert.Equal(t, 19, strings.Count(dot, ",tooltip="), "20 distinct states, 19 of them reached by a step")
	assert.Equal(t, 28, strings.Count(dot, " -> "), "29 states generated, one of them initial")
	assert.Contains(t, dot, `[label="Prepare(r1)",color="black",fontcolor="black"];`)
	assert.Contains(t, dot, `/\\ tmState = \"init\"`)

	res = tlcIn(t, tlcData, "tlc", "check", "-workers", "1", "-dump", filepath.Join(dir, "states"), "-config", "CommitAll", "Commit")
	require.Equal(t, 0, res.code, res.stdout+res.stderr)
	b, err = os.ReadFile(filepath.Join(dir, "states.dump"))
	require.NoError(t, err)
	n := 0
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "State ") {
			n++
		}
	}
	assert.Equal(t, 20, n, "20 distinct states")
	assert.True(t, strings.HasPrefix(string(b), "State 1:\n/\\ msgs = {}\n"), string(b))
}

// TestTLCExitCodesDocumented checks that docs/tla-support.md's table of
// exit codes is check.ExitCodes, which the command's help prints.
func TestTLCExitCodesDocumented(t *testing.T) {
	b, err := os.ReadFile("../../docs/tla-support.md")
	require.NoError(t, err)
	for _, c := range check.ExitCodes {
		assert.Contains(t, string(b), fmt.Sprintf("| %d | %s |\n", c.Code, c.Text))
	}
	help := tlcIn(t, ".", "tlc", "check", "-h")
	require.Equal(t, 0, help.code)
	assert.Contains(t, help.stdout, "   14  Assert failed\n")
}
