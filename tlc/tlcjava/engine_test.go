package tlcjava_test

import (
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/models"
	"github.com/modelfuzz/modelfuzz/tlc/sidecar"
	"github.com/modelfuzz/modelfuzz/tlc/sim"
	"github.com/modelfuzz/modelfuzz/tlc/tlcjava"
)

// realJar is TLC's jar beside the repository (../shared/tools/tlc); the
// test skips without it or without a JDK.
func realJar(t *testing.T) string {
	t.Helper()
	jar, err := filepath.Abs("../../../shared/tools/tlc/tla2tools.jar")
	require.NoError(t, err)
	if _, err := os.Stat(jar); err != nil {
		t.Skipf("no TLC at %s: the comparison with TLC itself needs it", jar)
	}
	for _, tool := range []string{"java", "javac"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s on the PATH: the comparison with TLC itself needs a JDK", tool)
		}
	}
	return jar
}

// startBoth starts the native engine in process and TLC on one model.
func startBoth(t *testing.T, spec models.Spec) (native sidecar.Simulator, tlc *tlcjava.Engine) {
	t.Helper()
	jar := realJar(t)
	m, err := models.Load(spec)
	require.NoError(t, err)
	s, err := sim.New(m, 0)
	require.NoError(t, err)
	dir := t.TempDir()
	mod, cfg, libs, err := models.WriteForTLC(spec, dir)
	require.NoError(t, err)
	e, err := tlcjava.Start(context.Background(), tlcjava.Options{
		Jar: jar, CacheDir: filepath.Join(dir, "cache"), Module: mod, Config: cfg, Libs: libs, Vars: m.Vars,
	})
	require.NoError(t, err)
	t.Cleanup(func() { e.Close() })
	return sidecar.InProc{Simulator: s}, e
}

func act(name string, kv ...any) sim.Action {
	a := sim.Action{Name: name, Params: map[string]any{}}
	for i := 0; i < len(kv); i += 2 {
		a.Params[kv[i].(string)] = kv[i+1]
	}
	return a
}

// TestTLCAnswersAsTheNativeEngine sends the same requests to both engines:
// valid and diverging sequences, unknown actions and parameters, several
// initial states.
func TestTLCAnswersAsTheNativeEngine(t *testing.T) {
	native, tlc := startBoth(t, models.Spec{Model: "microbench.tla", Consts: []string{"Workers=2", "Tasks=2"}})
	valid := []sim.Action{act("Start", "p", 1), act("Start", "p", 2), act("Start", "p", 3),
		act("RecvRegister", "p", 1), act("RecvRegister", "p", 2), act("RecvRegister", "p", 3),
		act("Serve", "v", 1, "r", 1, "w", 2)}
	reqs := []*sim.Request{
		{Actions: valid},
		{},
		{Actions: []sim.Action{act("Start", "p", 1), act("RecvRegister", "p", 2)}},
		{Actions: append(valid[:3:3], act("Foo"), act("Start", "p", 1))},
		{Actions: append(valid[:3:3], append([]sim.Action{act("RecvRegister", "p", 2)}, valid[3:]...)...), Resync: true},
		{Actions: append(valid[:6:6], act("Serve", "v", 1, "r", 1))},
		{Actions: append(valid[:6:6], act("Serve", "v", 1, "r", 1, "w", 2, "x", 0))},
	}
	ctx := context.Background()
	want, err := native.SimulateBatch(ctx, reqs)
	require.NoError(t, err)
	got, err := tlc.SimulateBatch(ctx, reqs)
	require.NoError(t, err)
	for i := range reqs {
		require.Empty(t, tlcjava.Compare("native", "TLC", want[i], got[i]), "request %d", i)
	}
	one, err := tlc.Simulate(ctx, reqs[0])
	require.NoError(t, err)
	require.Empty(t, tlcjava.Compare("native", "TLC", want[0], one))
	require.Greater(t, len(want[0].States), 3, "the valid trace visits states")
}

// printedState splits a state as TLC prints it into its variables' values,
// with the white space TLC's pretty printer adds where it breaks a long
// value over lines taken out.
var breaks = strings.NewReplacer("<< ", "<<", " >>", ">>", "[ ", "[", " ]", "]", "{ ", "{", " }", "}")

func printedState(s string) map[string]string {
	out := map[string]string{}
	for _, conj := range strings.Split("\n"+s, "\n/\\ ") {
		conj = strings.Join(strings.Fields(conj), " ")
		if conj == "" {
			continue
		}
		name, val, _ := strings.Cut(conj, " = ")
		out[name] = breaks.Replace(val)
	}
	return out
}

// TestExecuteProtocolSameStates asks the native sidecar and TLC the same
// /execute request, as the reference fuzzer's client does (no token): the
// states are the same, printed as TLC prints them.
func TestExecuteProtocolSameStates(t *testing.T) {
	t.Setenv("MODELFUZZ_TLC_OPEN_EXECUTE", "1")
	spec := models.Spec{Model: "raft.tla"}
	native, tlc := startBoth(t, spec)
	srv, err := sidecar.NewServer(native.(sidecar.InProc).Simulator, sidecar.ServerOptions{Token: "t", OpenExecute: true})
	require.NoError(t, err)
	hs := httptest.NewServer(srv)
	defer hs.Close()
	req := &sim.Request{Actions: []sim.Action{
		act("Timeout", "i", 1),
		act("HandleVoteRequest", "i", 2, "j", 1, "term", 2, "lastLogTerm", 1, "lastLogIndex", 3, "granted", true),
		act("HandleVoteResponse", "i", 1, "j", 2, "term", 2, "granted", true),
	}}
	ctx := context.Background()
	a, err := tlcjava.NewReference(hs.URL, time.Minute).Execute(ctx, sidecar.Events(req))
	require.NoError(t, err)
	b, err := tlcjava.NewReference(tlc.URL(), time.Minute).Execute(ctx, sidecar.Events(req))
	require.NoError(t, err)
	require.Equal(t, len(a.States), len(b.States), "native %v\nTLC %v", a.States, b.States)
	require.Greater(t, len(a.States), 1)
	for i := range a.States {
		require.Equal(t, printedState(a.States[i]), printedState(b.States[i]), "state %d", i)
	}
}

// TestTLCRejectsSpec: a spec TLC cannot parse is one line that says so.
func TestTLCRejectsSpec(t *testing.T) {
	jar := realJar(t)
	dir := t.TempDir()
	mod := filepath.Join(dir, "Broken.tla")
	require.NoError(t, os.WriteFile(mod, []byte("---- MODULE Broken ----\nVARIABLE x\nInit == x = \nNext == x' = x\n====\n"), 0o644))
	cfg := filepath.Join(dir, "Broken.cfg")
	require.NoError(t, os.WriteFile(cfg, []byte("INIT Init\nNEXT Next\n"), 0o644))
	_, err := tlcjava.Start(context.Background(), tlcjava.Options{Jar: jar, CacheDir: filepath.Join(dir, "cache"), Module: mod, Config: cfg})
	require.Error(t, err)
	require.NotContains(t, err.Error(), "\n")
	require.Contains(t, err.Error(), "TLC's JVM exited before it was ready")
	require.Contains(t, err.Error(), "TLC rejects the spec")
}

// TestKilledJVMIsRestarted: a JVM killed between requests is restarted,
// counted, and the request answered.
func TestKilledJVMIsRestarted(t *testing.T) {
	native, tlc := startBoth(t, models.Spec{Model: "microbench.tla", Consts: []string{"Workers=2", "Tasks=2"}})
	req := &sim.Request{Actions: []sim.Action{act("Start", "p", 1), act("Start", "p", 2)}}
	ctx := context.Background()
	want, err := native.Simulate(ctx, req)
	require.NoError(t, err)
	pid := tlc.PID()
	p, err := os.FindProcess(pid)
	require.NoError(t, err)
	require.NoError(t, p.Kill())
	got, err := tlc.Simulate(ctx, req)
	require.NoError(t, err)
	require.Empty(t, tlcjava.Compare("native", "TLC", want, got))
	require.Equal(t, 1, tlc.Restarts())
	require.NotEqual(t, pid, tlc.PID())
}

// TestCompileRefusesWhatIsNotTLC: a missing jar and a jar without TLC's
// classes are refused before javac runs, each in one line.
func TestCompileRefusesWhatIsNotTLC(t *testing.T) {
	dir := t.TempDir()
	_, err := tlcjava.Compile(filepath.Join(dir, "nope.jar"), dir)
	require.EqualError(t, err, "tla2tools jar "+filepath.Join(dir, "nope.jar")+": no such file")
	text := filepath.Join(dir, "text.jar")
	require.NoError(t, os.WriteFile(text, []byte("hello"), 0o644))
	_, err = tlcjava.Compile(text, dir)
	require.ErrorContains(t, err, "is not TLC's tla2tools.jar: not a jar")
	t.Setenv("TLA2TOOLS", "")
	_, err = tlcjava.Compile("", dir)
	require.ErrorContains(t, err, "give --tla2tools PATH or set $TLA2TOOLS")
}
