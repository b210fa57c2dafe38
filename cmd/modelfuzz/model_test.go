package main

import (
	"bytes"
	"encoding/json"
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
	"github.com/modelfuzz/modelfuzz/internal/testutil"
)

type modelRunJSON struct {
	Iterations   int64  `json:"iterations"`
	Strategy     string `json:"strategy"`
	UniqueTraces int    `json:"unique_traces"`
	ModelStates  *int   `json:"model_states"`
	Divergences  *int64 `json:"divergences"`
	CorpusSize   int    `json:"corpus_size"`
}

func lastModelJSON(t *testing.T, stdout string) modelRunJSON {
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	var r modelRunJSON
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &r), stdout)
	return r
}

// Model guidance end to end: through the subprocess
// sidecar (the default), the correct system reaches model states and never
// diverges from the model.
func TestModelGuidedRunThroughTheSidecar(t *testing.T) {
	res := modelfuzz(t, "run", "--adapter", "microbench", "--model", "microbench.tla", "--iterations", "3000",
		"--seed", "1", "--json", "--corpus", filepath.Join(t.TempDir(), "c"))
	require.Equal(t, 0, res.code, res.stderr)
	r := lastModelJSON(t, res.stdout)
	require.Equal(t, "model", r.Strategy)
	require.NotNil(t, r.ModelStates)
	require.Greater(t, *r.ModelStates, 0)
	require.NotNil(t, r.Divergences)
	require.Zero(t, *r.Divergences)
}

// In-process and sidecar simulation give the same campaign.
func TestInprocAndSidecarAgree(t *testing.T) {
	var got []modelRunJSON
	for _, mode := range []string{"inproc", "subprocess"} {
		res := modelfuzz(t, "run", "--adapter", "microbench", "--model", "microbench.tla", "--iterations", "2000",
			"--seed", "5", "--json", "--tlc", mode, "--corpus", filepath.Join(t.TempDir(), mode))
		require.Equal(t, 0, res.code, res.stderr)
		got = append(got, lastModelJSON(t, res.stdout))
	}
	require.Equal(t, *got[0].ModelStates, *got[1].ModelStates)
	require.Equal(t, got[0].UniqueTraces, got[1].UniqueTraces)
	require.Equal(t, got[0].CorpusSize, got[1].CorpusSize)
}

// childPIDs lists the processes whose parent is pid.
func childPIDs(pid int) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) > 1 {
			if ppid, _ := strconv.Atoi(f[1]); ppid == pid {
				out = append(out, n)
			}
		}
	}
	return out
}

// Killing the sidecar during a campaign neither stops the campaign nor
// loses an execution: the request in flight is re-run on a new sidecar.
func TestKillingTheSidecarDuringACampaign(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	const iterations = 30000
	cmd := exec.Command(binary, "run", "--adapter", "microbench", "--model", "microbench.tla",
		"--iterations", strconv.Itoa(iterations), "--seed", "1", "--json", "--corpus", dir)
	var out bytes.Buffer
	var errb testutil.SyncBuffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	require.NoError(t, cmd.Start())
	// Kill only once the campaign is under way (its first progress line):
	// a sidecar killed before it first answered fails the start, which a
	// loaded machine made this test do (the kills come every 0.7 s).
	require.Eventually(t, func() bool { return strings.Contains(errb.String(), "progress:") }, 2*time.Minute, 20*time.Millisecond,
		"the campaign never got under way:\n%s", errb.String())
	killed := 0
	deadline := time.Now().Add(20 * time.Second)
	for killed < 2 && time.Now().Before(deadline) {
		time.Sleep(700 * time.Millisecond)
		for _, c := range childPIDs(cmd.Process.Pid) {
			if syscall.Kill(c, syscall.SIGKILL) == nil {
				killed++
			}
		}
	}
	err := cmd.Wait()
	require.NoError(t, err, errb.String())
	require.Equal(t, 2, killed, "the sidecar was killed twice while the campaign ran")
	r := lastModelJSON(t, out.String())
	require.Equal(t, int64(iterations), r.Iterations)
	require.Contains(t, errb.String(), "restart")
	st, err := corpus.Open(dir, corpus.Options{MustExist: true})
	require.NoError(t, err)
	defer st.Close()
	snap, err := st.Load(0)
	require.NoError(t, err)
	require.Equal(t, int64(iterations), snap.Counters.Iterations)
	require.Zero(t, snap.Counters.HarnessErrs, "no execution was lost to the dead sidecar")
}

func TestModelErrorsAreOneLine(t *testing.T) {
	tmp := t.TempDir()
	oneLineError(t, modelfuzz(t, "run", "--strategy", "model", "--iterations", "1"), "--strategy model needs a model: add --model (for this adapter: --model microbench.tla)")
	oneLineError(t, modelfuzz(t, "run", "--strategy", "model-pctcp", "--iterations", "1"), "--strategy model-pctcp needs a model: add --model (for this adapter: --model microbench.tla)")
	oneLineError(t, modelfuzz(t, "run", "--model", "nosuch.tla", "--iterations", "1", "--corpus", filepath.Join(tmp, "a")), "model nosuch.tla: no such file, and not an embedded model")
	bad := filepath.Join(tmp, "Bad.tla")
	require.NoError(t, os.WriteFile(bad, []byte("---- MODULE Bad ----\nVARIABLE x\nInit == x = \nNext == x' = x\n====\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(tmp, "Bad.cfg"), []byte("INIT Init\nNEXT Next\n"), 0o644))
	oneLineError(t, modelfuzz(t, "run", "--model", bad, "--iterations", "1", "--corpus", filepath.Join(tmp, "b")), "Bad.tla:4:6: expected definition or declaration")
	oneLineError(t, modelfuzz(t, "run", "--model", "microbench.tla", "--tlc", "carrier-pigeon", "--iterations", "1"), `unknown --tlc "carrier-pigeon"`)
	oneLineError(t, modelfuzz(t, "run", "--model", "microbench.tla", "--tlc-url", "http://127.0.0.1:1", "--iterations", "1", "--corpus", filepath.Join(tmp, "c")), "--tlc-url http://127.0.0.1:1")
}

func TestModelMustBeTheAdaptersModel(t *testing.T) {
	oneLineError(t, modelfuzz(t, "run", "--adapter", "microbench", "--model", "raft.tla", "--iterations", "1", "--corpus", filepath.Join(t.TempDir(), "c")),
		"adapter microbench maps its executions onto microbench.tla, not raft.tla")
}

// The model names its adapter: raft.tla runs the etcd raft cluster.
func TestRaftModelRunsEtcdraft(t *testing.T) {
	res := modelfuzz(t, "run", "--model", "raft.tla", "--iterations", "300", "--seed", "2", "--json", "--tlc", "inproc",
		"--corpus", filepath.Join(t.TempDir(), "c"))
	require.Equal(t, 0, res.code, res.stderr)
	r := lastModelJSON(t, res.stdout)
	require.Greater(t, *r.ModelStates, 100)
	require.Zero(t, *r.Divergences)
}

// A campaign guided by one abstraction (the cfg's VIEW) and measured by
// another (--reference-view), with the rare energy schedule; continuing it
// keeps its schedule, and the views' sizes are measured by model size.
func TestAbstractionsAndEnergyOnRaft(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	args := []string{"run", "--model", "raft.tla", "--model-config", "raft_standing.cfg", "--reference-view", "ShapeView",
		"--energy", "rare", "--seed", "3", "--json", "--tlc", "inproc", "--corpus", dir}
	res := modelfuzz(t, append(args, "--iterations", "200")...)
	require.Equal(t, 0, res.code, res.stderr)
	var sum struct {
		Coverage map[string]int `json:"coverage"`
	}
	lines := strings.Split(strings.TrimSpace(res.stdout), "\n")
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &sum))
	require.Greater(t, sum.Coverage["model"], 20)
	require.Greater(t, sum.Coverage["view:ShapeView"], sum.Coverage["model"], "ShapeView is finer than StandingView")

	res = modelfuzz(t, append(args, "--iterations", "300")...)
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stderr, "continuing campaign")
	res = modelfuzz(t, append(args, "--energy", "fixed", "--iterations", "400")...)
	require.NotEqual(t, 0, res.code)
	require.Contains(t, res.stderr, "--energy")
	res = modelfuzz(t, append(args, "--stack", "2", "--iterations", "400")...)
	require.NotEqual(t, 0, res.code)
	require.Contains(t, res.stderr, "--stack 8 (not 2)", "a new campaign stacks up to 8 rounds")

	res = modelfuzz(t, "run", "--adapter", "microbench", "--reference-view", "View", "--iterations", "10", "--corpus", filepath.Join(t.TempDir(), "m"))
	require.NotEqual(t, 0, res.code)
	require.Contains(t, res.stderr, "--reference-view needs a model")

	// A bad command line is refused before anything is stored.
	for _, bad := range [][]string{{"--energy", "fast"}, {"--fresh-share", "1.5"}, {"--queue-max", "-3"}, {"--stack", "-1"}, {"--reference-view", "NoSuch"}, {"--strategy", "model-pctcp-genome", "--energy", "fixed"}, {"--strategy", "model-pctcp-tails", "--energy", "fixed"}, {"--strategy", "model-reorder", "--energy", "fixed"}} {
		fresh := filepath.Join(t.TempDir(), "bad")
		res = modelfuzz(t, append([]string{"run", "--model", "raft.tla", "--tlc", "inproc", "--iterations", "5", "--corpus", fresh}, bad...)...)
		require.NotEqual(t, 0, res.code, bad)
		require.Contains(t, res.stderr, bad[0])
		require.Equal(t, 1, strings.Count(strings.TrimSpace(res.stderr), "\n")+1, "one line: %s", res.stderr)
		require.NoDirExists(t, fresh, "nothing stored for %v", bad)
	}
	// A cfg that does not load: its path named, nothing stored (the
	// embedded raft_reads.cfg is not taken for a missing path of that name).
	fresh := filepath.Join(t.TempDir(), "badcfg")
	res = modelfuzz(t, "run", "--model", "raft.tla", "--model-config", "/nope/raft_reads.cfg", "--tlc", "inproc", "--iterations", "5", "--corpus", fresh)
	require.NotEqual(t, 0, res.code)
	require.Contains(t, res.stderr, "/nope/raft_reads.cfg")
	require.Equal(t, 1, strings.Count(strings.TrimSpace(res.stderr), "\n")+1, "one line: %s", res.stderr)
	require.NoDirExists(t, fresh, "nothing stored for a cfg that does not load")

	res = modelfuzz(t, "model", "size", "--model", "raft.tla", "--view", "View,StandingView", "--max-depth", "6")
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stdout, "3356 distinct states within depth 6")
	require.Regexp(t, `StandingView\s+\d+`, res.stdout)
	res = modelfuzz(t, "model", "size", "--model", "raft.tla", "--view", "Nope", "--max-depth", "3")
	require.NotEqual(t, 0, res.code)
	require.Contains(t, res.stderr, "Nope")
}

// Minimization and triage end to end: a campaign on etcd raft
// with a seeded bug finds it, minimizes every bug to at most half its
// length, and each minimized input replays to the same signature;
// `bugs` lists one row per distinct bug and `bugs show` walks the model.
func TestSeededRaftBugIsMinimizedAndTriaged(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	res := modelfuzz(t, "run", "--model", "raft.tla", "--inject", "send-before-persist", "--iterations", "300",
		"--seed", "1", "--json", "--tlc", "inproc", "--corpus", dir)
	require.Equal(t, 0, res.code, res.stderr)
	sum := lastJSON(t, res.stdout)
	require.NotEmpty(t, sum.Bugs)
	kinds := map[string]bool{}
	for _, b := range sum.Bugs {
		kinds[b.Kind] = true
	}
	require.True(t, kinds["safety"] || kinds["panic"], "a safety violation or a crash of the library: %v", sum.Bugs)

	res = modelfuzz(t, "bugs", "--corpus", dir, "--json")
	require.Equal(t, 0, res.code, res.stderr)
	var rows []struct {
		ID             string `json:"id"`
		Kind           string `json:"kind"`
		Signature      string `json:"signature"`
		Message        string `json:"message"`
		OriginalSteps  int    `json:"original_steps"`
		MinimizedSteps *int   `json:"minimized_steps"`
		MinimizeDone   bool   `json:"minimize_done"`
	}
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &rows))
	require.Len(t, rows, len(sum.Bugs), "one row per distinct bug")
	sigs := map[string]bool{}
	for _, r := range rows {
		require.False(t, sigs[r.Signature], "signature %q listed twice", r.Signature)
		sigs[r.Signature] = true
		require.NotNil(t, r.MinimizedSteps, "%s minimized", r.ID)
		require.LessOrEqual(t, 2**r.MinimizedSteps, r.OriginalSteps, "%s: %d -> %d steps", r.ID, r.OriginalSteps, *r.MinimizedSteps)
		require.True(t, r.MinimizeDone, r.ID)
		rep := modelfuzz(t, "replay", "--corpus", dir, r.ID)
		require.Equal(t, exitFailed, rep.code, rep.stderr)
		require.Contains(t, rep.stdout, "(minimized)")
		require.Contains(t, rep.stdout, "signature: "+r.Signature+"\n", "%s replays to its signature", r.ID)
		a, b := modelfuzz(t, "replay", "--corpus", dir, r.ID, "--json"), modelfuzz(t, "replay", "--corpus", dir, r.ID, "--json")
		require.Equal(t, a.stdout, b.stdout, "replays are byte-identical")
	}

	res = modelfuzz(t, "bugs", "--corpus", dir)
	require.Equal(t, 0, res.code, res.stderr)
	listed := 0
	for _, line := range strings.Split(res.stdout, "\n") {
		if strings.HasPrefix(line, "B") {
			listed++
		}
	}
	require.Equal(t, len(rows), listed, res.stdout) // one row per bug, in its group
	res = modelfuzz(t, "bugs", "show", "--corpus", dir, rows[0].ID)
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stdout, "the replay shows "+rows[0].ID+" again")
	require.Contains(t, res.stdout, "model raft.tla: ")
	require.Contains(t, res.stdout, "abstract state(s) visited")

	// A divergence names the event and the step with the length of the
	// input it counts in, the original's in the stored message and the
	// reproducer's in its replay; values are TLA+, never Go's.
	divergences := 0
	for _, r := range rows {
		if r.Kind != "divergence" {
			continue
		}
		divergences++
		require.Regexp(t, `^n\d .+ at step \d+ \(n\d [a-z-]+.*\) of the `+strconv.Itoa(r.OriginalSteps)+`-step input: the model does not allow [A-Za-z]+\(`, r.Message)
		show := modelfuzz(t, "bugs", "show", "--corpus", dir, r.ID)
		require.Equal(t, 0, show.code, show.stderr)
		require.Regexp(t, `FAILURE at step \d+: divergence: n\d .+ at step \d+ \(.+\) of the `+strconv.Itoa(*r.MinimizedSteps)+`-step input: `, show.stdout)
		require.Contains(t, show.stdout, "DIVERGES at action ")
		require.NotContains(t, show.stdout, "map[")
		require.NotContains(t, show.stdout, `{"i":`, "the model's actions as TLA+")
	}
	require.NotZero(t, divergences, "the seeded bug makes executions leave the model: %v", sum.Bugs)

	// minimize on the command line continues from the stored result and
	// writes a replayable input file.
	out := filepath.Join(t.TempDir(), "min.json")
	res = modelfuzz(t, "minimize", "--corpus", dir, rows[0].ID, "-o", out)
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stdout, "a fixpoint")
	res = modelfuzz(t, "replay", "--corpus", dir, out)
	require.Equal(t, exitFailed, res.code, res.stderr)
	require.Contains(t, res.stdout, "signature: "+rows[0].Signature+"\n")
}

// Line guidance needs the coverage build; without it the tool says which
// command builds it. With it (built here as make cover does), compare on
// etcd raft runs all four strategies and every run reports lines.
func TestLineGuidanceAndCompareOnRaft(t *testing.T) {
	res := modelfuzz(t, "run", "--model", "raft.tla", "--strategy", "line", "--iterations", "10", "--corpus", filepath.Join(t.TempDir(), "c"))
	oneLineError(t, res, "make cover")

	cover := filepath.Join(t.TempDir(), "modelfuzz-cover")
	out, err := exec.Command("go", "build", "-cover", "-covermode=atomic",
		"-coverpkg=go.etcd.io/raft/v3/...,github.com/modelfuzz/modelfuzz/cmd/modelfuzz", "-o", cover, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	dir := filepath.Join(t.TempDir(), "cmp")
	cmd := exec.Command(cover, "compare", "--adapter", "etcdraft", "--model", "raft.tla", "--strategies", "model,line,trace,random",
		"--runs", "2", "--iterations", "150", "--parallel", "2", "--out", dir)
	cmd.Env = append(os.Environ(), "GOCOVERDIR="+t.TempDir())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), stderr.String())
	var c struct {
		Strategies []struct {
			Name string `json:"name"`
			Runs []struct {
				Final map[string]float64 `json:"final"`
			} `json:"runs"`
		} `json:"strategies"`
		Tests []struct {
			Measure string `json:"measure"`
			B       string `json:"b"`
		} `json:"tests"`
	}
	data, err := os.ReadFile(filepath.Join(dir, "results.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &c))
	require.Len(t, c.Strategies, 4)
	for _, s := range c.Strategies {
		for _, r := range s.Runs {
			require.Greater(t, r.Final["lines"], 500.0, "%s reports lines covered", s.Name)
			require.Greater(t, r.Final["model"], 0.0)
		}
	}
	lines := 0
	for _, tt := range c.Tests {
		if tt.Measure == "final lines" {
			lines++
		}
	}
	require.Equal(t, 3, lines, "model against line, trace and random on lines")
	_, err = os.Stat(filepath.Join(dir, "coverage-lines.png"))
	require.NoError(t, err)
}

// A campaign killed with SIGKILL leaves no model sidecar behind.
func TestKill9LeavesNoSidecar(t *testing.T) {
	cmd := exec.Command(binary, "run", "--adapter", "microbench", "--model", "microbench.tla", "--corpus", filepath.Join(t.TempDir(), "c"))
	require.NoError(t, cmd.Start())
	var children []int
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && len(children) == 0; time.Sleep(100 * time.Millisecond) {
		out, _ := exec.Command("pgrep", "-P", strconv.Itoa(cmd.Process.Pid)).Output()
		for _, f := range strings.Fields(string(out)) {
			pid, _ := strconv.Atoi(f)
			children = append(children, pid)
		}
	}
	require.NotEmpty(t, children, "the sidecar started")
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	cmd.Wait()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		alive := 0
		for _, pid := range children {
			if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil && !strings.Contains(string(b), ") Z ") {
				alive++
			}
		}
		if alive == 0 {
			return
		}
		require.True(t, time.Now().Before(deadline), "the sidecar outlived its fuzzer")
	}
}
