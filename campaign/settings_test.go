package campaign

import (
	"encoding/json"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/require"
)

// A campaign stored by an earlier version (version 1 of the stored
// settings) reads into Settings, and writing it back gives the same fields.
func TestStoredSettingsKeepTheirFormat(t *testing.T) {
	old := `{"version":1,"adapter":"etcdraft","adapter_config":{"nodes":3,"snapshot_every":3},"strategy":"model","seed":5,` +
		`"steps":100,"max_messages":5,"crash_quota":10,"requests":5,"seed_population":20,"reseed_every":200,"mutations":5,` +
		`"pipeline":8,"model":"raft.tla","model_consts":["Server={1,2,3}"],"created":"2026-11-23T21:27:00Z"}`
	var s Settings
	require.NoError(t, json.Unmarshal([]byte(old), &s))
	require.Equal(t, "etcdraft", s.Adapter)
	require.Equal(t, uint64(5), s.Seed)
	require.Equal(t, 100, s.Steps)
	require.Equal(t, 8, s.Pipeline)
	require.Equal(t, []string{"Server={1,2,3}"}, s.ModelConsts)
	s.Iterations, s.CorpusDir = 3000, "somewhere" // not stored
	b, err := json.Marshal(&s)
	require.NoError(t, err)
	var a, want map[string]any
	require.NoError(t, json.Unmarshal(b, &a))
	require.NoError(t, json.Unmarshal([]byte(old), &want))
	require.Equal(t, want, a)
}

func TestDiffNamesTheFlag(t *testing.T) {
	base := func() *Settings {
		s := &Settings{Version: 1, Adapter: "microbench", AdapterConfig: json.RawMessage(`{"workers": 3}`), Strategy: "trace"}
		s.Seed, s.Steps, s.MaxMessages, s.Pipeline = 1, 50, 5, 8
		return s
	}
	cur := base()
	cur.Iterations, cur.Parallel, cur.Created = 99, 2, "later" // a session's own settings do not count
	cur.AdapterConfig = json.RawMessage(`{"workers":3}`)
	require.Empty(t, base().Diff(cur))

	cases := map[string]func(s *Settings){
		"--seed 1 (not 2)":                           func(s *Settings) { s.Seed = 2 },
		"--steps 50 (not 60)":                        func(s *Settings) { s.Steps = 60 },
		"--max-messages 5 (not 1)":                   func(s *Settings) { s.MaxMessages = 1 },
		"--pipeline 8 (not 1)":                       func(s *Settings) { s.Pipeline = 1 },
		"--strategy trace (not model)":               func(s *Settings) { s.Strategy = "model" },
		"--model unset (not raft.tla)":               func(s *Settings) { s.Model = "raft.tla" },
		"--reseed-every 0 (not 3)":                   func(s *Settings) { s.ReseedEvery = 3 },
		`adapter configuration: "workers" 3 (not 4)`: func(s *Settings) { s.AdapterConfig = json.RawMessage(`{"workers":4}`) },
		`adapter configuration: "api" unset (not "mixed"), "workers" 3 (not 4)`: func(s *Settings) {
			s.AdapterConfig = json.RawMessage(`{"workers":4,"api":"mixed"}`)
		},
		`adapter configuration {"workers":3} (not [2])`: func(s *Settings) { s.AdapterConfig = json.RawMessage(`[2]`) },
	}
	for want, change := range cases {
		cur := base()
		change(cur)
		require.Equal(t, want, base().Diff(cur))
	}
}

func TestTheModelNamesItsSystem(t *testing.T) {
	require.Equal(t, "etcdraft", AdapterForModel("raft.tla"))
	require.Equal(t, "etcdraft", AdapterForModel("/some/where/raft.tla"))
	require.Equal(t, "microbench", AdapterForModel("microbench"))
	require.Equal(t, "", AdapterForModel("other.tla"))
	_, err := LookupAdapter("nope")
	require.EqualError(t, err, `unknown adapter "nope" (known: etcd, etcdraft, microbench, process, redisraft)`)
}

// Under a trace spec, an execution waits on the library's sleeps far more
// than it computes: more run at once, and a hang is one past a minute,
// unless the command line says otherwise.
func TestTraceSpecSessionDefaults(t *testing.T) {
	for _, given := range [][]string{nil, {"parallel", "exec-timeout"}} {
		s := &Settings{Model: "etcdraft.tla"}
		s.Parallel, s.ExecTimeout = 3, 5*time.Second
		require.NoError(t, s.chooseSystem(func(f string) bool { return slices.Contains(given, f) }))
		if given == nil {
			require.Equal(t, 8*runtime.NumCPU(), s.Parallel)
			require.Equal(t, time.Minute, s.ExecTimeout)
		} else {
			require.Equal(t, 3, s.Parallel)
			require.Equal(t, 5*time.Second, s.ExecTimeout)
		}
	}
}

// TestModelEngineChoices: --tlc takes the engines and a reference
// server's URL, and --tla2tools only with TLC.
func TestModelEngineChoices(t *testing.T) {
	check := func(mode, jar string) error {
		fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
		var s Settings
		s.Register(fs)
		args := []string{"--model", "raft.tla", "--tlc", mode}
		if jar != "" {
			args = append(args, "--tla2tools", jar)
		}
		require.NoError(t, fs.Parse(args))
		return s.Validate(func(f string) bool { return fs.Changed(f) })
	}
	for _, mode := range []string{"subprocess", "inproc", "http://127.0.0.1:9999"} {
		require.NoError(t, check(mode, ""), mode)
	}
	require.NoError(t, check("java", "tla2tools.jar"))
	require.NoError(t, check("diff", "tla2tools.jar"))
	require.EqualError(t, check("tlc", ""), `unknown --tlc "tlc" (subprocess, inproc, java, diff or http://HOST:PORT)`)
	require.EqualError(t, check("inproc", "tla2tools.jar"), "--tla2tools is for --tlc java or --tlc diff")
}

// --election-timeout is shared by redisraft and etcd: -1 (its default)
// keeps each adapter's own, other negatives are refused.
func TestElectionTimeoutIsEachAdapters(t *testing.T) {
	f := &SystemFlags{ElectionTimeout: -1}
	got, err := f.electionTimeout(250)
	require.NoError(t, err)
	require.Equal(t, 250, got)
	f.ElectionTimeout = 0
	got, err = f.electionTimeout(250)
	require.NoError(t, err)
	require.Equal(t, 0, got)
	f.ElectionTimeout = -5
	_, err = f.electionTimeout(250)
	require.EqualError(t, err, "--election-timeout -5: must not be negative")
}

func TestJoinWantsANATSURL(t *testing.T) {
	require.NoError(t, checkJoinURL(""))
	require.NoError(t, checkJoinURL("nats://127.0.0.1:4222"))
	require.NoError(t, checkJoinURL("nats://a:4222,nats://b:4222"))
	require.EqualError(t, checkJoinURL("notaurl"), `--join "notaurl": want a hub's NATS URL, nats://HOST:PORT (as modelfuzz hub prints it)`)
	require.Error(t, checkJoinURL("http://x:80"))
}
