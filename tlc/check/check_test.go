package check

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/tlc/eval"
)

// update rewrites testdata/*.expected: go test ./tlc/check/ -run TestGolden
// -update. The expectations were derived by hand (each spec says how);
// review every change.
var update = flag.Bool("update", false, "rewrite testdata/*.expected")

// runSpec checks testdata/name.tla with testdata/name.cfg on the given
// number of workers and renders the outcome: result, exit code, counts,
// error, trace and printed output.
func runSpec(t *testing.T, name string, workers int) string {
	t.Helper()
	return runSpecWith(t, name, Options{Workers: workers})
}

func runSpecWith(t *testing.T, name string, opt Options) string {
	t.Helper()
	return runSpecCfg(t, name, filepath.Join("testdata", name+".tla"), "", opt)
}

// runSpecCfg is runSpecWith for the spec and cfg at the given paths (cfg
// "": the spec's own).
func runSpecCfg(t *testing.T, name, spec, cfg string, opt Options) string {
	t.Helper()
	m, err := eval.Load(spec, cfg)
	if err != nil {
		code, res := LoadFailure(err)
		msg := err.Error()
		if strings.Contains(msg, "panic") {
			t.Errorf("%s: the error looks like a Go panic: %s", name, msg)
		}
		return fmt.Sprintf("result: %s\nexit: %d\nerror: %s\n", res, code, msg)
	}
	var out bytes.Buffer
	m.Out = &out
	r := CheckWithProperties(m, opt)
	var b strings.Builder
	fmt.Fprintf(&b, "result: %s\nexit: %d\ndistinct: %d\ngenerated: %d\ndepth: %d\n", r.Result, r.ExitCode, r.Distinct, r.Generated, r.Depth)
	if r.Error != "" {
		fmt.Fprintf(&b, "error: %s\n", r.Error)
	}
	if r.Invariant != "" {
		fmt.Fprintf(&b, "invariant: %s\n", r.Invariant)
	}
	if r.Property != "" {
		fmt.Fprintf(&b, "property: %s\n", r.Property)
	}
	for i, st := range r.Trace {
		parts := make([]string, len(st.Vars))
		for j, v := range st.Values {
			parts[j] = st.Vars[j] + " = " + v.String()
		}
		fmt.Fprintf(&b, "state %d: %s\n", i+1, strings.Join(parts, ", "))
	}
	switch {
	case r.Stuttering:
		fmt.Fprintf(&b, "state %d: stuttering\n", len(r.Trace)+1)
	case r.LoopBack > 0:
		fmt.Fprintf(&b, "back to state %d\n", r.LoopBack)
	}
	for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		if l != "" {
			fmt.Fprintf(&b, "print: %s\n", l)
		}
	}
	return b.String()
}

func specNames(t *testing.T) []string {
	files, err := filepath.Glob("testdata/*.tla")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	var names []string
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".tla")
		if _, err := os.Stat(filepath.Join("testdata", name+".expected")); err != nil && !*update {
			continue // a module used by another spec (EXTENDS, INSTANCE)
		}
		if _, err := os.Stat(filepath.Join("testdata", name+".cfg")); err != nil {
			continue
		}
		names = append(names, name)
	}
	return names
}

// TestGolden checks every testdata/NAME.tla with NAME.cfg, on one worker,
// against NAME.expected: the result, TLC's exit code, the distinct and
// generated state counts, the depth, the error and its trace.
func TestGolden(t *testing.T) {
	for _, name := range specNames(t) {
		t.Run(name, func(t *testing.T) {
			got := runSpec(t, name, 1)
			path := filepath.Join("testdata", name+".expected")
			if *update {
				require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
				return
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, string(want), got)
		})
	}
}

// TestGoldenWorkers checks that several workers find the same counts as
// one when the search runs to its end (a violation stops the workers at
// different points, so only its kind is compared).
func TestGoldenWorkers(t *testing.T) {
	for _, name := range specNames(t) {
		t.Run(name, func(t *testing.T) {
			one := withoutPrints(runSpec(t, name, 1))
			many := withoutPrints(runSpec(t, name, 4))
			if strings.HasPrefix(one, "result: success") {
				assert.Equal(t, one, many)
				return
			}
			assert.Equal(t, strings.SplitN(one, "\n", 3)[:2], strings.SplitN(many, "\n", 3)[:2])
		})
	}
}

// TestGoldenOnDisk checks that a search whose queue is on disk (every
// state encoded, written, read back and decoded) finds what the search in
// memory finds, error traces included (rebuilt from fingerprints both
// ways).
func TestGoldenOnDisk(t *testing.T) {
	for _, name := range specNames(t) {
		t.Run(name, func(t *testing.T) {
			mem := runSpec(t, name, 1)
			dir := t.TempDir()
			disk := runSpecWith(t, name, Options{Workers: 1, MemStates: -1, QueueDir: dir})
			assert.Equal(t, mem, disk)
			many := withoutPrints(runSpecWith(t, name, Options{Workers: 3, MemStates: 2, QueueDir: dir}))
			left, err := os.ReadDir(dir)
			require.NoError(t, err)
			assert.Empty(t, left, "the queue's files are gone")
			if strings.HasPrefix(mem, "result: success") {
				assert.Equal(t, withoutPrints(mem), many)
				return
			}
			assert.Equal(t, strings.SplitN(mem, "\n", 3)[:2], strings.SplitN(many, "\n", 3)[:2])
		})
	}
}

// withoutPrints drops the printed lines: workers print in any order.
func withoutPrints(out string) string {
	var keep []string
	for _, l := range strings.SplitAfter(out, "\n") {
		if !strings.HasPrefix(l, "print: ") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "")
}

// TestDeterministic checks that two runs give the same bytes.
func TestDeterministic(t *testing.T) {
	for _, name := range specNames(t) {
		assert.Equal(t, runSpec(t, name, 1), runSpec(t, name, 1), name)
	}
}

// TestMaxDepth checks that a search bounded by depth counts the states
// within that many steps, initial states at depth 1.
func TestMaxDepth(t *testing.T) {
	m, err := eval.Load(filepath.Join("testdata", "Counter.tla"), "")
	require.NoError(t, err)
	r := Check(m, Options{Workers: 1, MaxDepth: 2})
	assert.Equal(t, "stopped at depth 2 (--max-depth)", r.Error)
	assert.EqualValues(t, 2, r.Distinct, "x = 0 and x = 1")
	assert.Equal(t, 2, r.Depth)
	r = Check(m, Options{Workers: 1, MaxDepth: 5})
	assert.Equal(t, "success", r.Result, "the whole space is within 4 steps")
	assert.EqualValues(t, 4, r.Distinct)
}

// TestStepByActionFindsTheSameStates checks that the search action by
// action (Options.Step, for TLC's -coverage and -dump dot) generates what
// the search of the whole next-state relation generates, and that the
// per-action counts add up.
func TestStepByActionFindsTheSameStates(t *testing.T) {
	for _, name := range specNames(t) {
		t.Run(name, func(t *testing.T) {
			m, err := eval.Load(filepath.Join("testdata", name+".tla"), "")
			if err != nil {
				return
			}
			m.Out = io.Discard
			whole := Check(m, Options{Workers: 1})
			var steps, fresh atomic.Int64
			byAction := Check(m, Options{Workers: 1, Step: func(tr Transition) {
				steps.Add(1)
				if tr.Fresh {
					fresh.Add(1)
				}
			}})
			assert.Equal(t, whole.Result, byAction.Result)
			if whole.Result != "success" {
				return
			}
			assert.Equal(t, whole.Distinct, byAction.Distinct)
			assert.Equal(t, whole.Generated, byAction.Generated)
			assert.Equal(t, whole.Distinct, fresh.Load())
			src, err := os.ReadFile(filepath.Join("testdata", name+".tla"))
			require.NoError(t, err)
			if strings.Contains(string(src), `\cdot`) {
				// TLC counts the intermediate states of A \cdot B as
				// generated; they are no step.
				assert.LessOrEqual(t, steps.Load(), whole.Generated)
				return
			}
			assert.Equal(t, whole.Generated, steps.Load(), "every state generated is a step")
		})
	}
}
