package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/raftkv"
)

func env(kv map[string]string) func(string) string {
	return func(k string) string { return kv[k] }
}

const cluster3 = "1=127.0.0.1:7101,2=127.0.0.1:7102,3=127.0.0.1:7103"

func TestParseFlags(t *testing.T) {
	base := []string{"--cluster", cluster3, "--client", "127.0.0.1:7201", "--data", "/tmp/d"}

	cfg, level, err := parseFlags(append([]string{"--id", "3", "--inject", "stale-read", "--tick", "20ms", "--snapshot-every", "7"}, base...), env(nil), io.Discard)
	require.NoError(t, err)
	require.Equal(t, uint64(3), cfg.ID)
	require.Equal(t, "127.0.0.1:7103", cfg.Cluster[3])
	require.Equal(t, "stale-read", cfg.Inject)
	require.Equal(t, 20*time.Millisecond, cfg.Tick)
	require.Equal(t, 7, cfg.SnapshotEvery)
	require.Empty(t, cfg.FuzzerURL)
	require.Equal(t, "warn", level)

	// The fuzzer's environment gives the defaults; flags win.
	fz := env(map[string]string{"MODELFUZZ_ID": "2", "MODELFUZZ_URL": "http://127.0.0.1:41233"})
	cfg, _, err = parseFlags(base, fz, io.Discard)
	require.NoError(t, err)
	require.Equal(t, uint64(2), cfg.ID)
	require.Equal(t, "http://127.0.0.1:41233", cfg.FuzzerURL)
	require.Equal(t, raftkv.DefaultTick, cfg.Tick)
	require.Equal(t, raftkv.DefaultSnapshotEvery, cfg.SnapshotEvery)
	cfg, _, err = parseFlags(append([]string{"--id", "1", "--fuzzer", ""}, base...), fz, io.Discard)
	require.NoError(t, err)
	require.Equal(t, uint64(1), cfg.ID)
	require.Empty(t, cfg.FuzzerURL)

	for _, tc := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{base, nil, "--id"},
		{append([]string{"--id", "4"}, base...), nil, "not in --cluster"},
		{append([]string{"--id", "1", "--inject", "nope"}, base...), nil, "unknown --inject"},
		{append([]string{"--id", "1", "--snapshot-every", "0"}, base...), nil, "--snapshot-every"},
		{append([]string{"--id", "1", "--log-level", "loud"}, base...), nil, "--log-level"},
		{append([]string{"--id", "1", "extra"}, base...), nil, "unexpected arguments"},
		{[]string{"--id", "1", "--client", "a:1", "--data", "d"}, nil, "--cluster is required"},
		{[]string{"--id", "1", "--cluster", "1=a:1,3=b:2", "--client", "a:1", "--data", "d"}, nil, "2 is missing"},
		{base, map[string]string{"MODELFUZZ_ID": "one"}, "MODELFUZZ_ID"},
	} {
		_, _, err := parseFlags(tc.args, env(tc.env), io.Discard)
		require.ErrorContains(t, err, tc.want, "%v", tc.args)
	}
	require.Equal(t, 2, run([]string{"--id", "9", "--cluster", cluster3}, env(nil), io.Discard))
}

// buildBinary builds cmd/raftkv once per test binary.
var buildBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "raftkv-bin-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "raftkv")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
})

func TestMain(m *testing.M) {
	code := m.Run()
	if bin, err := buildBinary(); err == nil {
		_ = os.RemoveAll(filepath.Dir(bin))
	}
	os.Exit(code)
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return addr
}

// procs runs replicas as real processes, each in its own process group,
// killed with the test.
type procs struct {
	t       *testing.T
	bin     string
	cluster string
	client  []string
	dirs    []string
	cmds    []*exec.Cmd
	extra   []string
}

func newProcs(t *testing.T, n int, extra ...string) *procs {
	bin, err := buildBinary()
	require.NoError(t, err)
	p := &procs{t: t, bin: bin, client: make([]string, n+1), dirs: make([]string, n+1), cmds: make([]*exec.Cmd, n+1), extra: extra}
	var parts []string
	for i := 1; i <= n; i++ {
		parts = append(parts, fmt.Sprintf("%d=%s", i, freeAddr(t)))
		p.client[i] = freeAddr(t)
		p.dirs[i] = t.TempDir()
	}
	p.cluster = strings.Join(parts, ",")
	t.Cleanup(func() {
		for i := range p.cmds {
			p.kill(i)
		}
	})
	return p
}

func (p *procs) start(i int) {
	p.t.Helper()
	args := append([]string{"--id", fmt.Sprint(i), "--cluster", p.cluster, "--client", p.client[i], "--data", p.dirs[i], "--tick", "20ms"}, p.extra...)
	cmd := exec.Command(p.bin, args...)
	cmd.Env = append(os.Environ(), "MODELFUZZ_URL=", "MODELFUZZ_ID=")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stderr = os.Stderr
	require.NoError(p.t, cmd.Start())
	p.cmds[i] = cmd
}

// kill sends SIGKILL to the replica's process group and reaps it.
func (p *procs) kill(i int) {
	cmd := p.cmds[i]
	if cmd == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Wait()
	p.cmds[i] = nil
}

func request(method, url, body string, timeout time.Duration) (int, string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// put retries until the write is acknowledged: a replica may still be
// starting or electing.
func (p *procs) put(i int, key, value string) {
	p.t.Helper()
	require.Eventually(p.t, func() bool {
		code, _, err := request(http.MethodPut, "http://"+p.client[i]+"/kv/"+key, value, time.Second)
		return err == nil && code == http.StatusOK
	}, 15*time.Second, 20*time.Millisecond, "PUT %s=%s at replica %d", key, value, i)
}

func (p *procs) get(i int, key string) string {
	p.t.Helper()
	var body string
	require.Eventually(p.t, func() bool {
		code, b, err := request(http.MethodGet, "http://"+p.client[i]+"/kv/"+key, "", time.Second)
		body = b
		return err == nil && code == http.StatusOK
	}, 15*time.Second, 20*time.Millisecond, "GET %s at replica %d", key, i)
	var r raftkv.GetResponse
	require.NoError(p.t, json.Unmarshal([]byte(body), &r))
	return r.Value
}

func (p *procs) status(i int) raftkv.Status {
	p.t.Helper()
	code, b, err := request(http.MethodGet, "http://"+p.client[i]+"/status", "", time.Second)
	require.NoError(p.t, err)
	require.Equal(p.t, http.StatusOK, code)
	var st raftkv.Status
	require.NoError(p.t, json.Unmarshal([]byte(b), &st))
	return st
}

// TestProcesses runs a standalone cluster of real processes and kills
// (SIGKILL) and restarts a follower, then the leader.
func TestProcesses(t *testing.T) {
	p := newProcs(t, 3, "--snapshot-every", "4")
	for i := 1; i <= 3; i++ {
		p.start(i)
	}
	p.put(1, "x", "1")
	for i := 1; i <= 3; i++ {
		require.Equal(t, "1", p.get(i, "x"), "replica %d", i)
	}
	lead := int(p.status(1).Lead)
	require.NotZero(t, lead)
	follower := lead%3 + 1

	p.kill(follower)
	for k := range 6 {
		p.put(lead, fmt.Sprint("y", k), fmt.Sprint(k))
	}
	p.put(lead, "x", "2")
	p.start(follower)
	require.Equal(t, "2", p.get(follower, "x"))

	p.kill(lead)
	other := lead%3 + 1 // not the old leader
	p.put(other, "x", "3")
	p.start(lead)
	require.Equal(t, "3", p.get(lead, "x"))
	require.Equal(t, "5", p.get(lead, "y5"))
}

// TestProcessRegisters: under a fuzzer the process registers with its pid
// and peer address and hands over its messages at a timeout.
func TestProcessRegisters(t *testing.T) {
	var mu sync.Mutex
	var regs []raftkv.Registration
	var msgs []raftkv.Envelope
	fz := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		var err error
		switch r.URL.Path {
		case "/replica":
			var reg raftkv.Registration
			if err = json.Unmarshal(b, &reg); err == nil {
				regs = append(regs, reg)
			}
		case "/message":
			var m raftkv.Envelope
			if err = json.Unmarshal(b, &m); err == nil {
				msgs = append(msgs, m)
			}
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		_, _ = io.Copy(w, bytes.NewReader([]byte(`{"ok":true}`)))
	}))
	defer fz.Close()

	p := newProcs(t, 3)
	peer := strings.TrimPrefix(strings.Split(p.cluster, ",")[0], "1=")
	bin, err := buildBinary()
	require.NoError(t, err)
	cmd := exec.Command(bin, "--cluster", p.cluster, "--client", p.client[1], "--data", p.dirs[1])
	cmd.Env = append(os.Environ(), "MODELFUZZ_URL="+fz.URL, "MODELFUZZ_ID=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())
	p.cmds[1] = cmd

	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(regs) == 1
	}, 10*time.Second, 10*time.Millisecond)
	mu.Lock()
	require.Equal(t, "1", regs[0].ID)
	require.Equal(t, peer, regs[0].Addr)
	require.True(t, regs[0].Ready)
	require.EqualValues(t, cmd.Process.Pid, regs[0].Info["pid"])
	mu.Unlock()

	code, _, err := request(http.MethodPost, "http://"+peer+"/timeout", "{}", 5*time.Second)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, code)
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, msgs, 2, "the votes were handed over before /timeout answered")
	require.Equal(t, "MsgVote", msgs[0].Type)
}
