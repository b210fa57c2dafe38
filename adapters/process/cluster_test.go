package process

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/schedule"
)

func TestClusterValidation(t *testing.T) {
	good := `{"name": "x", "processes": 3, "command": "/bin/true", "client": "http://127.0.0.1:{client_port}", "request": {"kind": "kv"}}`
	c, err := ParseCluster([]byte(good), "/d")
	require.NoError(t, err)
	require.Equal(t, "/d", c.Dir)
	require.Equal(t, "n1", c.expand("n{id}", procVars{index: 0}))
	require.Equal(t, 2, c.Request.Keys)
	require.Equal(t, "20ms", c.Quiet)

	for _, tc := range []struct{ name, json, want string }{
		{"unknown field", `{"name": "x", "processes": 1, "command": "c", "colour": 1}`, `unknown field "colour"`},
		{"missing command", `{"name": "x", "processes": 1}`, `command: missing`},
		{"missing name", `{"processes": 1, "command": "c"}`, `name: missing`},
		{"bad processes", `{"name": "x", "processes": 0, "command": "c"}`, `processes: must be 1..64, got 0`},
		{"bad duration", `{"name": "x", "processes": 1, "command": "c", "quiet": "20 ms"}`, `quiet: bad duration "20 ms"`},
		{"duration not a string", `{"name": "x", "processes": 1, "command": "c", "quiet": 20}`, `line 1, column 57: quiet: want string, got a JSON number`},
		{"negative quiet", `{"name": "x", "processes": 1, "command": "c", "quiet": "-1s"}`, `quiet: must not be negative`},
		{"ready timeout", `{"name": "x", "processes": 1, "command": "c", "ready": {"timeout": "0s"}}`, `ready.timeout: must be positive`},
		{"unknown placeholder", `{"name": "x", "processes": 1, "command": "c", "args": ["{ide}"]}`, `args[0]: unknown placeholder {ide}`},
		{"data dir outside", `{"name": "x", "processes": 1, "command": "c", "data_dir": "../{id}"}`, `data_dir: must be a relative path`},
		{"shared data dir", `{"name": "x", "processes": 2, "command": "c", "data_dir": "data"}`, `data_dir: "data" gives every process the same directory`},
		{"data dir placeholder", `{"name": "x", "processes": 1, "command": "c", "data_dir": "{port}"}`, `data_dir: unknown placeholder {port}`},
		{"reserved env", `{"name": "x", "processes": 1, "command": "c", "env": {"MODELFUZZ_URL": "x"}}`, `env: MODELFUZZ_URL is set by the fuzzer`},
		{"request kind", `{"name": "x", "processes": 1, "command": "c", "client": "http://h:{client_port}", "request": {"kind": "queue"}}`, `request.kind: unknown kind "queue"`},
		{"request without client", `{"name": "x", "processes": 1, "command": "c", "request": {"kind": "kv"}}`, `request: needs "client"`},
		{"client not a URL", `{"name": "x", "processes": 1, "command": "c", "client": "127.0.0.1:{client_port}"}`, `client: must be an http:// URL template`},
		{"no register without client", `{"name": "x", "processes": 1, "command": "c", "ready": {"register": false}}`, `ready.register: false needs "client"`},
		{"syntax", "{\n  \"name\": \"x\",\n  \"processes\": 1,,\n}", `line 3, column 18: want a key in double quotes, found ','`},
		{"trailing", `{"name": "x", "processes": 1, "command": "c"} {}`, `trailing data`},
		{"empty", ``, `empty file`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseCluster([]byte(tc.json), "/d")
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.want)
		})
	}

	// Every problem is reported, one per line.
	_, err = ParseCluster([]byte(`{"processes": 0, "quiet": "x", "args": ["{nope}"]}`), "/d")
	require.Error(t, err)
	lines := strings.Split(err.Error(), "\n")
	require.Len(t, lines, 5, err.Error())
	require.Equal(t, []string{"name: missing (a name for the system, e.g. \"raftkv\")", "processes: must be 1..64, got 0",
		"command: missing (the replica's executable)", "args[0]: unknown placeholder {nope} (known: {id} {index} {port} {client_port} {data} {cluster} {processes})",
		"quiet: bad duration \"x\": want a number with a unit, such as \"20ms\""}, lines)
}

func TestLoadClusterNamesTheFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "c.json")
	require.NoError(t, os.WriteFile(p, []byte(`{"name": "x", "processes": 1}`), 0o644))
	_, err := LoadCluster(p)
	require.EqualError(t, err, "cluster file "+p+": command: missing (the replica's executable)")
	_, err = LoadCluster(filepath.Join(t.TempDir(), "none.json"))
	require.ErrorContains(t, err, "none.json: no such file")
}

func TestRaftkvClusterFile(t *testing.T) {
	c, err := LoadCluster("raftkv.json")
	require.NoError(t, err)
	require.Equal(t, "raftkv", c.Name)
	require.Equal(t, 3, c.Processes)
	require.True(t, c.register())
	v := procVars{index: 1, port: 7102, clientPort: 8102, data: "/run/n2", cluster: "1=127.0.0.1:7101,2=127.0.0.1:7102,3=127.0.0.1:7103", processes: 3}
	var args []string
	for _, a := range c.Args {
		args = append(args, c.expand(a, v))
	}
	require.Equal(t, []string{"--id", "2", "--cluster", "1=127.0.0.1:7101,2=127.0.0.1:7102,3=127.0.0.1:7103",
		"--client", "127.0.0.1:8102", "--data", "/run/n2"}, args)
	require.Equal(t, "http://127.0.0.1:8102", c.expand(c.Client, v))
}

func TestCommandResolution(t *testing.T) {
	dir := t.TempDir()
	c := fakeCluster(1, func(c map[string]any) { c["command"] = "no-such-replica-binary" })
	p := filepath.Join(dir, "c.json")
	b, _ := json.Marshal(c)
	require.NoError(t, os.WriteFile(p, b, 0o644))
	_, err := NewFactory(p, Options{StateDir: t.TempDir()})
	require.EqualError(t, err, `cluster fake: command "no-such-replica-binary": not found in `+dir+` or on PATH`)

	// A bare name next to the cluster file wins over PATH.
	require.NoError(t, os.Symlink(fakeBin, filepath.Join(dir, "fake")))
	c["command"] = "fake"
	b, _ = json.Marshal(c)
	require.NoError(t, os.WriteFile(p, b, 0o644))
	fac, err := NewFactory(p, Options{StateDir: t.TempDir()})
	require.NoError(t, err)
	defer fac.Close()
	require.Equal(t, filepath.Join(dir, "fake"), fac.command)
}

func TestConfigRoundTrip(t *testing.T) {
	fac, _ := newFake(t, fakeCluster(3, nil), nil)
	require.Equal(t, []schedule.Action{schedule.Deliver, schedule.Crash, schedule.Restart, schedule.Timeout, schedule.Request}, fac.Spec().Actions)
	fac2, err := FactoryFromConfig(fac.Config(), Options{StateDir: t.TempDir()})
	require.NoError(t, err)
	defer fac2.Close()
	require.Equal(t, fac.Spec(), fac2.Spec())
	require.JSONEq(t, string(fac.Config()), string(fac2.Config()))
	require.Equal(t, fac.command, fac2.command)

	// Without registration or requests, the spec offers less.
	fac3, _ := newFake(t, fakeCluster(2, func(c map[string]any) {
		c["ready"] = map[string]any{"register": false}
		delete(c, "request")
	}), nil)
	require.Equal(t, []schedule.Action{schedule.Crash, schedule.Restart}, fac3.Spec().Actions)
}

func TestTruncatedClusterFile(t *testing.T) {
	_, err := ParseCluster([]byte(`{"name": "x", "processes": 3, "command": `), "/")
	require.EqualError(t, err, "line 1, column 42: the document ends early: cut short?")
}
