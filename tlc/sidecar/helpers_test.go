package sidecar

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/models"
	"github.com/modelfuzz/modelfuzz/tlc/sim"
)

// binary is the modelfuzz executable the launcher tests run ("" with -short).
var binary string

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeEnv); mode != "" {
		fakeSidecar(mode)
		return
	}
	flag.Parse()
	if testing.Short() {
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "modelfuzz-sidecar")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "modelfuzz")
	out, err := exec.Command("go", "build", "-o", binary, "github.com/modelfuzz/modelfuzz/cmd/modelfuzz").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "building modelfuzz: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// fakeEnv makes the test binary a fake sidecar that is healthy but fails
// every simulation: "hang" never answers, "crash" exits.
const fakeEnv = "MODELFUZZ_SIDECAR_TEST_FAKE"

func fakeSidecar(mode string) {
	ln, err := ListenLoopback("127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc(PathHealth, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, &Health{Status: "ok", Model: "fake"})
	})
	mux.HandleFunc(PathSimulate, func(w http.ResponseWriter, r *http.Request) {
		if mode == "crash" {
			os.Exit(3)
		}
		select {}
	})
	fmt.Printf("%shttp://%s\n", ReadyPrefix, ln.Addr())
	http.Serve(ln, mux)
}

func needBinary(tb testing.TB) {
	tb.Helper()
	if binary == "" {
		tb.Skip("launches the modelfuzz binary (not with -short)")
	}
}

// The microbench configuration of these tests.
var microbenchConsts = []string{"Workers=2", "Tasks=2"}

func newSim(tb testing.TB, model string, consts ...string) *sim.Simulator {
	tb.Helper()
	m, err := models.Load(models.Spec{Model: model, Consts: consts})
	require.NoError(tb, err)
	m.Out = testWriter{tb}
	s, err := sim.New(m, 0)
	require.NoError(tb, err)
	return s
}

type testWriter struct{ tb testing.TB }

func (w testWriter) Write(b []byte) (int, error) { w.tb.Logf("%s", b); return len(b), nil }

const testToken = "test-token"

// newTestServer serves s with httptest and returns a client of it.
func newTestServer(tb testing.TB, s *sim.Simulator, opt ServerOptions) (*httptest.Server, *Client) {
	tb.Helper()
	if opt.Token == "" {
		opt.Token = testToken
	}
	srv, err := NewServer(s, opt)
	require.NoError(tb, err)
	hs := httptest.NewServer(srv)
	tb.Cleanup(hs.Close)
	c := NewClient(hs.URL, opt.Token, 10*time.Second)
	tb.Cleanup(c.CloseIdleConnections)
	return hs, c
}

// launch runs the test binary's tlc serve with args after "tlc serve".
func launch(tb testing.TB, opt LaunchOptions, serveArgs ...string) *Process {
	tb.Helper()
	needBinary(tb)
	opt.Binary = binary
	opt.Args = append([]string{"tlc", "serve"}, serveArgs...)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p, err := Launch(ctx, opt)
	require.NoError(tb, err)
	tb.Cleanup(func() { p.Close() })
	return p
}

func microbenchArgs() []string {
	args := []string{"--model", "microbench.tla"}
	for _, c := range microbenchConsts {
		args = append(args, "--const", c)
	}
	return args
}

func act(name string, kv ...any) sim.Action {
	a := sim.Action{Name: name}
	if len(kv) > 0 {
		a.Params = map[string]any{}
		for i := 0; i < len(kv); i += 2 {
			a.Params[kv[i].(string)] = kv[i+1]
		}
	}
	return a
}

// microbenchTrace is a valid microbench trace of n actions for 2 workers
// and the given tasks per request: the terminator and both workers start
// and register, then requests are served round robin, each executed task
// by task, reported done, terminated and flushed.
func microbenchTrace(n, tasks int) []sim.Action {
	const workers = 2
	var out []sim.Action
	for p := 1; p <= workers+1; p++ {
		out = append(out, act("Start", "p", p))
	}
	for p := 1; p <= workers+1; p++ {
		out = append(out, act("RecvRegister", "p", p))
	}
	for r := 1; len(out) < n; r++ {
		w := 2 + (r-1)%workers
		out = append(out, act("Serve", "v", r, "r", r, "w", w))
		for k := 1; k <= tasks; k++ {
			out = append(out, act("Execute", "w", w, "r", r, "k", k))
		}
		out = append(out, act("RecvDone", "r", r), act("Terminate", "r", r, "w", w), act("Flush", "w", w, "r", r))
	}
	return out[:n]
}

func boolp(b bool) *bool { return &b }

var regexpToken = regexp.MustCompile(`(?m)^token: (\S+)$`)
