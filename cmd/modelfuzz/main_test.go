package main

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/corpus"
	"github.com/modelfuzz/modelfuzz/record"
	"github.com/modelfuzz/modelfuzz/schedule"
)

var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "modelfuzz-bin")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "modelfuzz")
	out, err := exec.Command("go", "build", "-tags", buildTags, "-o", binary, ".").CombinedOutput()
	if err != nil {
		os.Stderr.Write(out)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type result struct {
	stdout, stderr string
	code           int
}

func modelfuzz(t *testing.T, args ...string) result {
	t.Helper()
	cmd := exec.Command(binary, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return result{out.String(), errb.String(), code}
}

type runJSON struct {
	Iterations   int64   `json:"iterations"`
	ExecsPerSec  float64 `json:"execs_per_sec"`
	Strategy     string  `json:"strategy"`
	UniqueTraces int     `json:"unique_traces"`
	CorpusSize   int     `json:"corpus_size"`
	Bugs         []struct {
		ID, Signature, Kind string
		FirstIteration      int64 `json:"first_iteration"`
	} `json:"bugs"`
	Known []struct {
		ID, Known, Kind string
		Hits            int64
		FirstIteration  int64 `json:"first_iteration"`
	} `json:"known"`
}

func lastJSON(t *testing.T, stdout string) runJSON {
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	var r runJSON
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &r), stdout)
	return r
}

func TestRunFindsTheSeededBugAndReplaysIt(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	res := modelfuzz(t, "run", "--adapter", "microbench", "--inject", "flush-before-last", "--workers", "3", "--tasks", "5",
		"--strategy", "trace", "--iterations", "5000", "--seed", "1", "--json", "--corpus", dir)
	require.Equal(t, 0, res.code, res.stderr)
	r := lastJSON(t, res.stdout)
	require.Equal(t, int64(5000), r.Iterations)
	require.Equal(t, "trace", r.Strategy)
	require.Greater(t, r.UniqueTraces, 0)
	require.Len(t, r.Bugs, 1)
	require.Equal(t, "panic", r.Bugs[0].Kind)
	require.Contains(t, r.Bugs[0].Signature, "flush processed right before the last execute")

	// Replaying twice gives identical bytes, as a timeline and as JSON.
	a := modelfuzz(t, "replay", "--corpus", dir, r.Bugs[0].ID)
	b := modelfuzz(t, "replay", "--corpus", dir, r.Bugs[0].ID)
	require.Equal(t, exitFailed, a.code, "a replay that shows the bug fails, as a test would: %s", a.stderr)
	require.True(t, strings.HasPrefix(a.stderr, "modelfuzz: bug "+r.Bugs[0].ID+" (minimized) failed at step "), a.stderr)
	require.Equal(t, 1, strings.Count(a.stderr, "\n"), "one line: %q", a.stderr)
	// An input that shows no failure passes: exit 0.
	pass := filepath.Join(t.TempDir(), "pass.json")
	require.NoError(t, os.WriteFile(pass, []byte(`{"version":1,"steps":[]}`), 0o644))
	ok := modelfuzz(t, "replay", "--adapter", "microbench", "--inject", "flush-before-last", "--workers", "3", "--tasks", "5", pass)
	require.Equal(t, 0, ok.code, ok.stderr)
	require.Contains(t, ok.stdout, "no failure")
	require.Empty(t, ok.stderr)
	require.Equal(t, a.stdout, b.stdout)
	ja := modelfuzz(t, "replay", "--corpus", dir, "--json", r.Bugs[0].ID)
	jb := modelfuzz(t, "replay", "--corpus", dir, "--json", r.Bugs[0].ID)
	require.Equal(t, ja.stdout, jb.stdout)
	require.Equal(t, exitFailed, ja.code, ja.stderr)
	_, err := schedule.DecodeTrace([]byte(ja.stdout))
	require.NoError(t, err)

	// The timeline shows the worker receiving the flush right before the last execute.
	lines := strings.Split(a.stdout, "\n")
	found := false
	for i := 0; i+1 < len(lines); i++ {
		if strings.Contains(lines[i], "<- terminator") && strings.Contains(lines[i], "flush") &&
			strings.Contains(lines[i+1], "<- worker") && strings.Contains(lines[i+1], "execute") && strings.Contains(lines[i+1], "task=5") {
			found = true
		}
	}
	require.True(t, found, a.stdout)
	require.Contains(t, a.stdout, "FAILURE at step")

	// Export, then replay the exported file with the same adapter flags.
	exp := filepath.Join(t.TempDir(), "exp")
	res = modelfuzz(t, "corpus", "export", "--corpus", dir, "--out", exp)
	require.Equal(t, 0, res.code, res.stderr)
	c := modelfuzz(t, "replay", "--adapter", "microbench", "--inject", "flush-before-last", "--workers", "3", "--tasks", "5",
		filepath.Join(exp, "bugs", r.Bugs[0].ID+".json"))
	require.Equal(t, exitFailed, c.code, c.stderr)
	require.Contains(t, c.stdout, "FAILURE at step")
	// The minimized reproducer is exported too, and replays the bug.
	m := modelfuzz(t, "replay", "--adapter", "microbench", "--inject", "flush-before-last", "--workers", "3", "--tasks", "5",
		filepath.Join(exp, "bugs", r.Bugs[0].ID+".min.json"))
	require.Equal(t, exitFailed, m.code, m.stderr)
	require.Contains(t, m.stdout, "FAILURE at step")
	meta, err := os.ReadFile(filepath.Join(exp, "bugs", r.Bugs[0].ID+".meta.json"))
	require.NoError(t, err)
	require.Contains(t, string(meta), `"MinimizedSteps"`)
}

func TestRunWithoutInjectionFindsNothing(t *testing.T) {
	res := modelfuzz(t, "run", "--adapter", "microbench", "--workers", "3", "--tasks", "5",
		"--strategy", "trace", "--iterations", "5000", "--seed", "1", "--json", "--corpus", filepath.Join(t.TempDir(), "c"))
	require.Equal(t, 0, res.code, res.stderr)
	require.Empty(t, lastJSON(t, res.stdout).Bugs)
}

type stored struct {
	inputs    map[uint64]string
	bugs      map[string]string
	minimized map[string]int // bug -> steps of its minimized input
	stats     map[uint64]string
	iters     int64
}

func readCorpus(t *testing.T, dir string) stored {
	st, err := corpus.Open(dir, corpus.Options{MustExist: true})
	require.NoError(t, err, "the corpus opens cleanly")
	defer st.Close()
	snap, err := st.Load(-1)
	require.NoError(t, err)
	s := stored{inputs: map[uint64]string{}, bugs: map[string]string{}, minimized: map[string]int{},
		stats: map[uint64]string{}, iters: snap.Counters.Iterations}
	for _, r := range snap.Inputs {
		s.inputs[r.ID] = string(schedule.EncodeInput(r.Input))
	}
	for _, b := range snap.Bugs {
		s.bugs[b.ID] = b.Signature + "\n" + string(schedule.EncodeInput(b.Input))
		if b.Minimized != nil {
			s.minimized[b.ID] = b.Minimized.Len()
		}
	}
	recs, err := st.Stats()
	require.NoError(t, err)
	for _, r := range recs {
		js, _ := json.Marshal(r)
		s.stats[r.Seq] = string(js)
	}
	return s
}

// TestKill9LosesNothingCommitted kills a running --parallel 2 campaign with
// SIGKILL at random moments and continues it each time: every input, bug
// and stats snapshot stored before a kill is still there, unchanged (a
// minimized input may only get shorter), the corpus opens cleanly, and the
// campaign goes on.
func TestKill9LosesNothingCommitted(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	args := []string{"run", "--adapter", "microbench", "--inject", "flush-before-last", "--workers", "3", "--tasks", "5",
		"--strategy", "trace", "--seed", "1", "--corpus", dir, "--log-level", "error", "--parallel", "2", "--stats-every", "100ms"}
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0))
	var prev stored
	for round := 0; round < 10; round++ {
		cmd := exec.Command(binary, args...)
		var errb bytes.Buffer
		cmd.Stderr = &errb
		require.NoError(t, cmd.Start())
		// Kill at a random moment after the campaign committed progress
		// (read from a snapshot while it runs): a fixed delay can end
		// before a loaded machine's campaign has started.
		require.Eventually(t, func() bool {
			st, err := corpus.Open(dir, corpus.Options{MustExist: true, ReadOnly: true})
			if err != nil {
				return false
			}
			defer st.Close()
			snap, err := st.Load(0)
			return err == nil && snap.Counters.Iterations > prev.iters
		}, 2*time.Minute, 50*time.Millisecond, "round %d: no progress: %s", round, &errb)
		time.Sleep(time.Duration(r.IntN(1000)) * time.Millisecond)
		require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
		_ = cmd.Wait()
		require.NotContains(t, errb.String(), "modelfuzz: ", "the run failed before the kill: %s", errb.String())
		cur := readCorpus(t, dir)
		for id, in := range prev.inputs {
			require.Equal(t, in, cur.inputs[id], "round %d: input %d lost or changed", round, id)
		}
		for id, b := range prev.bugs {
			require.Equal(t, b, cur.bugs[id], "round %d: bug %s lost or changed", round, id)
		}
		for id, n := range prev.minimized {
			require.Contains(t, cur.minimized, id, "round %d: minimized input of %s lost", round, id)
			require.LessOrEqual(t, cur.minimized[id], n, "round %d: minimized input of %s grew", round, id)
		}
		for seq, js := range prev.stats {
			require.Equal(t, js, cur.stats[seq], "round %d: stats snapshot %d lost or changed", round, seq)
		}
		require.Greater(t, cur.iters, prev.iters, "round %d: the campaign continued", round)
		prev = cur
	}
	require.NotEmpty(t, prev.bugs)
	require.NotEmpty(t, prev.stats)
	require.NotEmpty(t, prev.minimized)
	// A clean finish after all that.
	res := modelfuzz(t, append(args, "--iterations", "1", "--json")...)
	require.Equal(t, 0, res.code, res.stderr)
}

func oneLineError(t *testing.T, res result, want string) {
	t.Helper()
	require.NotEqual(t, 0, res.code)
	msg := strings.TrimSpace(res.stderr)
	require.NotContains(t, msg, "\n", "one line: %q", msg)
	require.True(t, strings.HasPrefix(msg, "modelfuzz: "), msg)
	require.Contains(t, msg, want)
}

func TestBadInputGetsOneClearLine(t *testing.T) {
	tmp := t.TempDir()
	bad := filepath.Join(tmp, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte("{\"version\": 1, \"steps\": [\n  {\"process\": 0, \"action\": \"deliver\" \n]}"), 0o644))
	oneLineError(t, modelfuzz(t, "replay", bad), "bad.json:3:1: want ',' or '}' after the value, found ']'")
	oneLineError(t, modelfuzz(t, "replay", filepath.Join(tmp, "missing.json")), "no such file")

	oneLineError(t, modelfuzz(t, "run", "--adapter", "nosuch", "--iterations", "1"), `unknown adapter "nosuch" (known: etcd, etcdraft, microbench, process, redisraft)`)
	oneLineError(t, modelfuzz(t, "run", "--strategy", "magic", "--iterations", "1"), `unknown --strategy "magic"`)
	oneLineError(t, modelfuzz(t, "run", "--strategy", "line", "--iterations", "1"), "--strategy line: adapter microbench has no line coverage")
	fakeMod := filepath.Join(tmp, "redisraft.so")
	require.NoError(t, os.WriteFile(fakeMod, nil, 0o644))
	oneLineError(t, modelfuzz(t, "run", "--adapter", "redisraft", "--strategy", "line", "--redis-server", "/bin/true", "--redisraft-module", fakeMod,
		"--iterations", "1", "--corpus", filepath.Join(tmp, "c")), "--strategy line: redisraft: line coverage ")
	oneLineError(t, modelfuzz(t, "run", "--iterations", "ten"), `invalid argument "ten"`)
	oneLineError(t, modelfuzz(t, "run", "--no-such-flag"), "unknown flag: --no-such-flag")

	// A locked corpus.
	dir := filepath.Join(tmp, "locked")
	st, err := corpus.Open(dir, corpus.Options{})
	require.NoError(t, err)
	oneLineError(t, modelfuzz(t, "run", "--corpus", dir, "--iterations", "10"), "locked by another modelfuzz process (pid ")
	require.NoError(t, st.Close())

	// A corrupted corpus: everything stays as it was.
	dir = filepath.Join(tmp, "corrupt")
	res := modelfuzz(t, "run", "--corpus", dir, "--iterations", "100", "--workers", "2", "--tasks", "2")
	require.Equal(t, 0, res.code, res.stderr)
	manifest := filepath.Join(dir, "db", "MANIFEST")
	require.NoError(t, os.WriteFile(manifest, []byte("not a manifest"), 0o644))
	before := snapshotDir(t, dir)
	oneLineError(t, modelfuzz(t, "run", "--corpus", dir, "--iterations", "200", "--workers", "2", "--tasks", "2"), "db/MANIFEST cannot be read (it does not start as a MANIFEST does)")
	oneLineError(t, modelfuzz(t, "corpus", "list", "--corpus", dir), "db/MANIFEST cannot be read (it does not start as a MANIFEST does)")
	require.Equal(t, before, snapshotDir(t, dir), "a failed open changes nothing")

	// A campaign continued with other settings.
	dir = filepath.Join(tmp, "other")
	require.Equal(t, 0, modelfuzz(t, "run", "--corpus", dir, "--iterations", "10").code)
	oneLineError(t, modelfuzz(t, "run", "--corpus", dir, "--iterations", "20", "--seed", "2"), "holds a campaign with --seed 1 (not 2)")
	oneLineError(t, modelfuzz(t, "run", "--corpus", dir, "--iterations", "20", "--tasks", "3"), `adapter configuration: "tasks" 20 (not 3)`)

	// Not a corpus.
	oneLineError(t, modelfuzz(t, "corpus", "list", "--corpus", tmp), "is not a modelfuzz corpus")
	oneLineError(t, modelfuzz(t, "replay", "--corpus", dir, "B9"), "no bug with id B9")
}

func snapshotDir(t *testing.T, dir string) map[string]string {
	out := map[string]string{}
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		require.NoError(t, err)
		if !info.IsDir() && filepath.Base(p) != "modelfuzz.lock" {
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			out[p] = string(b)
		}
		return nil
	})
	return out
}

func TestImportedInputsRunFirst(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "c")
	in := filepath.Join(tmp, "seed.json")
	require.NoError(t, os.WriteFile(in, schedule.EncodeInput(&schedule.Input{Steps: []schedule.Step{
		{Process: 0, Action: schedule.Request, Value: 1}, {Process: 1, Action: schedule.Deliver, Messages: 1}}}), 0o644))
	// A corpus that does not exist is a mistyped --corpus, unless asked
	// to create one.
	oneLineError(t, modelfuzz(t, "corpus", "import", "--corpus", dir, in), "corpus "+dir+": no such directory; check --corpus, or add --create")
	require.NoDirExists(t, dir)
	res := modelfuzz(t, "corpus", "import", "--create", "--corpus", dir, in)
	require.Equal(t, 0, res.code, res.stderr)
	res = modelfuzz(t, "run", "--corpus", dir, "--iterations", "50", "--workers", "2", "--tasks", "2")
	require.Equal(t, 0, res.code, res.stderr)
	res = modelfuzz(t, "corpus", "show", "--corpus", dir, "1")
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stdout, `"source": "import"`)
	require.Contains(t, res.stdout, `"iteration": 1,`)
	res = modelfuzz(t, "corpus", "list", "--corpus", dir)
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stdout, "iterations 50 over 1 session(s)")
}

// A library panic raised in raft.Node's own goroutine (the loop, not the
// fuzzer's goroutine that drives it) is a bug of the campaign, with its
// input, and the campaign runs on to its budget, as a fork server would.
func TestNodeGoroutinePanicIsABugAndTheCampaignGoesOn(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	res := modelfuzz(t, "corpus", "import", "--create", "--corpus", dir, filepath.Join("..", "..", "adapters", "etcdraft", "testdata", "node-goroutine-panic.json"))
	require.Equal(t, 0, res.code, res.stderr)
	res = modelfuzz(t, "run", "--adapter", "etcdraft", "--api", "node", "--inject", "unchecked-conf", "--strategy", "random",
		"--iterations", "200", "--seed", "1", "--json", "--minimize=false", "--corpus", dir)
	require.Equal(t, 0, res.code, res.stderr)
	r := lastJSON(t, res.stdout)
	require.Equal(t, int64(200), r.Iterations)
	require.NotEmpty(t, r.Bugs)
	require.Equal(t, "panic", r.Bugs[0].Kind)
	require.Equal(t, int64(1), r.Bugs[0].FirstIteration, "the imported input runs first")
	require.Contains(t, r.Bugs[0].Signature, "panic: removed all voters @ v3.(*raft).applyConfChange")
	rep := modelfuzz(t, "replay", "--corpus", dir, r.Bugs[0].ID)
	require.Equal(t, exitFailed, rep.code, rep.stderr)
	require.Contains(t, rep.stdout, "FAILURE at step")
}

// SIGINT finishes the executions in flight, stops the minimization under
// way (keeping what it reached), prints the summary and exits 0. While the
// campaign waits for an execution in flight (here one that hangs), a second
// signal exits at once with 130. The corpus opens cleanly either way.
func TestSignalsStopACampaignCleanly(t *testing.T) {
	// One signal: the campaign stops after the executions in flight.
	dir := filepath.Join(t.TempDir(), "c")
	code, out, errb, _ := interruptCampaign(t, []string{"run", "--adapter", "microbench", "--inject", "flush-before-last",
		"--workers", "3", "--tasks", "5", "--strategy", "trace", "--corpus", dir, "--parallel", "2", "--json"}, 1500*time.Millisecond, 1)
	require.Equal(t, 0, code, errb)
	var sum struct {
		Interrupted bool  `json:"interrupted"`
		Iterations  int64 `json:"iterations"`
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &sum), out)
	require.True(t, sum.Interrupted)
	require.Equal(t, sum.Iterations, readCorpus(t, dir).iters, "every iteration of the summary is in the corpus")

	// Two signals while an execution hangs for a minute: the second one
	// does not wait for it. The hang comes after a few executions; on a
	// loaded machine the campaign may not have reached it when the first
	// signal arrives, and then it rightly stops at once (exit 0): try
	// again with a longer warm-up.
	for _, warmup := range []time.Duration{1500 * time.Millisecond, 5 * time.Second, 15 * time.Second} {
		dir := filepath.Join(t.TempDir(), "c")
		code, _, errb, took := interruptCampaign(t, []string{"run", "--adapter", "microbench", "--inject", "hang-on-flush-before-last",
			"--workers", "3", "--tasks", "5", "--strategy", "trace", "--corpus", dir, "--exec-timeout", "60s", "--json"}, warmup, 2)
		if code == 0 {
			t.Logf("stopped on the first signal after a %v warm-up, before any execution hung; again", warmup)
			continue
		}
		require.Equal(t, 130, code, errb)
		require.Less(t, took, 20*time.Second, "the second signal did not wait for the hung execution")
		readCorpus(t, dir)
		return
	}
	t.Fatal("no execution hung within 15 s of starting the campaign")
}

// interruptCampaign starts modelfuzz with args, sends SIGINT after
// warmup (and a second one 300 ms later when signals is 2), and returns
// its exit code, stdout, stderr and the time from the first signal to
// its exit.
func interruptCampaign(t *testing.T, args []string, warmup time.Duration, signals int) (int, string, string, time.Duration) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	time.Sleep(warmup)
	start := time.Now()
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	if signals == 2 {
		select {
		case <-done: // stopped on the first: nothing was hung
			return cmd.ProcessState.ExitCode(), out.String(), errb.String(), time.Since(start)
		case <-time.After(300 * time.Millisecond):
		}
		_ = cmd.Process.Signal(os.Interrupt) // it may have exited meanwhile
	}
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("still running 30 s after SIGINT: %s", errb.String())
	}
	t.Logf("%d signal(s): exited %v after the first", signals, time.Since(start).Round(time.Millisecond))
	return cmd.ProcessState.ExitCode(), out.String(), errb.String(), time.Since(start)
}

// compare, like run, takes the system from the model when --adapter is
// not given: raft.tla's campaigns run etcd raft.
func TestCompareTakesTheAdapterFromTheModel(t *testing.T) {
	out := filepath.Join(t.TempDir(), "cmp")
	res := modelfuzz(t, "compare", "--model", "raft.tla", "--strategies", "model,random",
		"--runs", "1", "--iterations", "20", "--jobs", "1", "--out", out)
	require.Equal(t, 0, res.code, res.stderr)
	require.NotContains(t, res.stderr, "FAILED")
	data, err := os.ReadFile(filepath.Join(out, "results.json"))
	require.NoError(t, err)
	var rc struct {
		Adapter string `json:"adapter"`
	}
	require.NoError(t, json.Unmarshal(data, &rc))
	require.Equal(t, "etcdraft", rc.Adapter)
}

// A model that does not exist is refused before any campaign starts.
func TestCompareRefusesAMissingModel(t *testing.T) {
	out := filepath.Join(t.TempDir(), "cmp")
	oneLineError(t, modelfuzz(t, "compare", "--model", "nosuch.tla", "--strategies", "model,random", "--out", out),
		"model nosuch.tla: no such file, and not an embedded model")
	_, err := os.Stat(filepath.Join(out, "runs"))
	require.True(t, os.IsNotExist(err), "no campaign ran")
}

// compare end to end on the micro-benchmark: three strategies,
// five runs each; results.json and report.html hold all three with U and
// A12 values, and the plots are written.
func TestCompareMicrobench(t *testing.T) {
	out := filepath.Join(t.TempDir(), "cmp")
	res := modelfuzz(t, "compare", "--adapter", "microbench", "--model", "microbench.tla", "--strategies", "model,trace,random",
		"--runs", "5", "--iterations", "2000", "--workers", "3", "--jobs", "2", "--out", out)
	require.Equal(t, 0, res.code, res.stderr)
	var c struct {
		// The adapter's flags and the tool are part of the settings.
		SystemFlags []string `json:"system_flags"`
		Tool        string   `json:"tool"`
		Strategies  []struct {
			Name string `json:"name"`
			Runs []struct {
				Seed     uint64                       `json:"seed"`
				Coverage map[string][]json.RawMessage `json:"coverage"`
				Final    map[string]float64           `json:"final"`
			} `json:"runs"`
		} `json:"strategies"`
		Tests []struct {
			Measure string  `json:"measure"`
			A       string  `json:"a"`
			B       string  `json:"b"`
			P       float64 `json:"p"`
			A12     float64 `json:"a12"`
		} `json:"tests"`
	}
	data, err := os.ReadFile(filepath.Join(out, "results.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &c))
	require.Contains(t, c.SystemFlags, "--workers=3")
	require.True(t, strings.HasPrefix(c.Tool, "modelfuzz "), c.Tool)
	require.Len(t, c.Strategies, 3)
	for _, s := range c.Strategies {
		require.Len(t, s.Runs, 5, s.Name)
		for i, r := range s.Runs {
			require.Equal(t, uint64(i+1), r.Seed, "the same seeds for every strategy")
			require.Greater(t, r.Final["model"], 0.0)
			require.Greater(t, len(r.Coverage["model"]), 100, "coverage over iterations")
			var last struct {
				Iteration int64   `json:"iteration"`
				Seconds   float64 `json:"seconds"`
			}
			require.NoError(t, json.Unmarshal(r.Coverage["model"][len(r.Coverage["model"])-1], &last))
			require.Greater(t, last.Seconds, 0.0, "and over fuzzing time")
		}
	}
	against := map[string]bool{}
	for _, tt := range c.Tests {
		if tt.Measure == "final model" {
			require.Equal(t, "model", tt.A)
			against[tt.B] = true
			require.True(t, tt.P > 0 && tt.P <= 1, "p-value %v", tt.P)
			require.True(t, tt.A12 >= 0 && tt.A12 <= 1, "A12 %v", tt.A12)
		}
	}
	require.True(t, against["trace"] && against["random"], "model against trace and random: %+v", c.Tests)
	html, err := os.ReadFile(filepath.Join(out, "report.html"))
	require.NoError(t, err)
	for _, want := range []string{"model", "trace", "random", "Mann-Whitney", "A12", "data:image/png;base64,", "--workers=3"} {
		require.Contains(t, string(html), want)
	}
	// Plots over iterations and over time, each as PNG and SVG.
	for _, name := range []string{"coverage-model", "coverage-traces", "coverage-model-time", "coverage-traces-time"} {
		_, err := os.Stat(filepath.Join(out, name+".png"))
		require.NoError(t, err)
		svg, err := os.ReadFile(filepath.Join(out, name+".svg"))
		require.NoError(t, err)
		require.Contains(t, string(svg), "<svg ")
	}
	require.Contains(t, string(html), `alt="Model coverage over fuzzing time"`)
	require.Contains(t, res.stdout, "(each .png and .svg)")
}

// report writes one campaign as a self-contained page: coverage over time
// from the stats snapshots, and every bug with its reproducer's timeline.
func TestReportOfACampaign(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	res := modelfuzz(t, "run", "--adapter", "microbench", "--inject", "flush-before-last", "--workers", "3", "--tasks", "5",
		"--strategy", "trace", "--iterations", "3000", "--stats-every", "50ms", "--corpus", dir, "--json")
	require.Equal(t, 0, res.code, res.stderr)
	out := filepath.Join(t.TempDir(), "r.html")
	res = modelfuzz(t, "report", "--corpus", dir, "--out", out)
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stdout, "1 bug(s)")
	page, err := os.ReadFile(out)
	require.NoError(t, err)
	s := string(page)
	require.Contains(t, s, "data:image/png;base64,")
	require.Contains(t, s, "bugs over time")
	require.Contains(t, s, "corpus size over time")
	require.Contains(t, s, "flush processed right before the last execute")
	require.Contains(t, s, "the replay shows B1 again")
	require.NotContains(t, s, "http://")
	require.NotContains(t, s, "https://")
	oneLineError(t, modelfuzz(t, "report", "--corpus", dir), "report needs --out FILE.html")

	// The stats snapshots behind the figures, as CSV and JSON lines.
	res = modelfuzz(t, "corpus", "stats", "--corpus", dir)
	require.Equal(t, 0, res.code, res.stderr)
	rows := strings.Split(strings.TrimSpace(res.stdout), "\n")
	require.GreaterOrEqual(t, len(rows), 2)
	require.Equal(t, "seq,time,run_seconds,session,iterations,execs_per_sec,corpus,bugs,failures,traces,rss_bytes,heap_bytes,queue,pool,dropped", rows[0])
	res = modelfuzz(t, "corpus", "stats", "--corpus", dir, "--json")
	require.Equal(t, 0, res.code, res.stderr)
	var last record.StatsRecord
	lines := strings.Split(strings.TrimSpace(res.stdout), "\n")
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &last))
	require.Equal(t, int64(3000), last.Iterations)
	require.Equal(t, len(rows)-1, len(lines))

	// Resumed: the plots mark where the campaign started again.
	require.NotContains(t, s, "resumed at")
	res = modelfuzz(t, "run", "--adapter", "microbench", "--inject", "flush-before-last", "--workers", "3", "--tasks", "5",
		"--strategy", "trace", "--iterations", "3500", "--stats-every", "50ms", "--corpus", dir, "--json")
	require.Equal(t, 0, res.code, res.stderr)
	res = modelfuzz(t, "report", "--corpus", dir, "--out", out)
	require.Equal(t, 0, res.code, res.stderr)
	page, err = os.ReadFile(out)
	require.NoError(t, err)
	require.Regexp(t, `The campaign was resumed at \d+\.\d minute\(s\) of fuzzing \(dashed vertical lines\)`, string(page))
}

// compare's campaigns at once are --jobs; the old --parallel still works
// and says what it became (run's --parallel is system instances).
func TestCompareJobsFlag(t *testing.T) {
	help := modelfuzz(t, "compare", "--help")
	require.Equal(t, 0, help.code, help.stderr)
	require.Contains(t, help.stdout, "--jobs int")
	require.NotContains(t, help.stdout, "--parallel int")
	res := modelfuzz(t, "compare", "--adapter", "microbench", "--parallel", "1")
	require.NotEqual(t, 0, res.code)
	require.Contains(t, res.stdout+res.stderr, "use --jobs")
	// A flag's bad value is said in a user's words, not strconv's.
	bad := modelfuzz(t, "compare", "--adapter", "microbench", "--jobs", "x")
	require.NotEqual(t, 0, bad.code)
	require.Contains(t, bad.stderr, `invalid argument "x" for "--jobs" flag: want a whole number`)
	require.NotContains(t, bad.stderr, "strconv")
}

func TestMemoryLimitFlags(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--adapter", "microbench", "--iterations", "1", "--memory-limit", "-1", "--corpus", t.TempDir()},
	} {
		r := modelfuzz(t, args...)
		require.NotEqual(t, 0, r.code, args)
		require.Contains(t, r.stderr, "--memory-limit must not be negative", args)
		require.Equal(t, 1, strings.Count(strings.TrimSpace(r.stderr), "\n")+1, "one line: %q", r.stderr)
	}
}

// run --fail-on-bug, for CI: exit 3 when the run found a new bug, naming
// it after the summary; a bug found by an earlier run is not new; without
// the flag a run that finds bugs exits 0.
func TestFailOnBug(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	args := []string{"run", "--adapter", "microbench", "--inject", "flush-before-last", "--workers", "3", "--tasks", "5",
		"--corpus", dir, "--minimize=false"}
	res := modelfuzz(t, append(args, "--iterations", "2000", "--fail-on-bug")...)
	require.Equal(t, exitFailed, res.code, res.stderr)
	require.Contains(t, res.stdout, "B1", "the summary comes first")
	lines := strings.Split(strings.TrimSpace(res.stderr), "\n")
	require.Equal(t, "modelfuzz: this run found 1 new bug(s): B1 (--fail-on-bug)", lines[len(lines)-1])

	res = modelfuzz(t, append(args, "--iterations", "2100", "--fail-on-bug")...)
	require.Equal(t, 0, res.code, "B1 is not new: %s", res.stderr)

	res = modelfuzz(t, "run", "--adapter", "microbench", "--inject", "flush-before-last", "--workers", "3", "--tasks", "5",
		"--corpus", filepath.Join(t.TempDir(), "d"), "--iterations", "2000", "--minimize=false")
	require.Equal(t, 0, res.code, "the default exits 0: %s", res.stderr)
	require.Contains(t, res.stdout, "B1")
}

// A signal stops a run whatever it is doing: here every worker is stuck
// in an execution that hangs with no --exec-timeout to stop it. The run
// stops those executions StopGrace after SIGTERM, records nothing of
// them, summarizes and exits 0; the corpus holds what the summary says,
// no spurious hang bug, and the campaign goes on. (How soon it stops is a
// figure of docs/benchmarks.md, not an assertion here.)
func TestSignalStopsARunStuckInAHang(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	args := []string{"run", "--adapter", "microbench", "--inject", "hang-on-flush-before-last", "--workers", "3", "--tasks", "5",
		"--corpus", dir, "--parallel", "2", "--exec-timeout", "0", "--stats-every", "100ms"}
	cmd := exec.Command(binary, append(args, "--json")...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	require.NoError(t, cmd.Start())
	// Some iterations are recorded before every worker hangs.
	require.Eventually(t, func() bool {
		st, err := corpus.Open(dir, corpus.Options{MustExist: true, ReadOnly: true})
		if err != nil {
			return false
		}
		defer st.Close()
		snap, err := st.Load(0)
		return err == nil && snap.Counters.Iterations > 0
	}, 2*time.Minute, 50*time.Millisecond, "no progress: %s", &errb)
	time.Sleep(time.Second)
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(2 * time.Minute): // a hang of the test, not a measure of speed
		cmd.Process.Kill()
		t.Fatalf("still running after SIGTERM: %s", errb.String())
	}
	require.Equal(t, 0, cmd.ProcessState.ExitCode(), errb.String())
	var sum struct {
		Interrupted bool  `json:"interrupted"`
		Iterations  int64 `json:"iterations"`
		Abandoned   int64 `json:"abandoned"`
		Bugs        []struct{ Kind string }
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &sum), out.String())
	require.True(t, sum.Interrupted)
	require.Positive(t, sum.Abandoned, "the hung executions were stopped")
	require.Empty(t, sum.Bugs, "no hang bug without an execution timeout")
	require.Equal(t, sum.Iterations, readCorpus(t, dir).iters, "every iteration of the summary is in the corpus")

	res := modelfuzz(t, "run", "--adapter", "microbench", "--inject", "hang-on-flush-before-last", "--workers", "3", "--tasks", "5",
		"--corpus", dir, "--parallel", "2", "--exec-timeout", "200ms", "--stats-every", "100ms", "--minimize=false",
		"--iterations", strconv.FormatInt(sum.Iterations+20, 10), "--json")
	require.Equal(t, 0, res.code, res.stderr)
	require.Equal(t, sum.Iterations+20, lastJSON(t, res.stdout).Iterations, "the campaign goes on")
}
