package etcd

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.etcd.io/raft/v3/raftpb"

	"github.com/modelfuzz/modelfuzz/internal/osproc"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// etcd's key space as the linearizability oracle models it: values,
// mod revisions and the store's revision must all agree.
func TestHistoryModelOfRevisions(t *testing.T) {
	put := func(key, val string, rev, call, ret int64) Op {
		return Op{Kind: opPut, Key: key, Arg: val, Rev: rev, Call: call, Return: ret}
	}
	get := func(key, val string, mod, rev, call, ret int64) Op {
		return Op{Kind: opGet, Key: key, Found: val != "", Out: val, Mod: mod, Rev: rev, Call: call, Return: ret}
	}
	ok := []Op{
		put("k0", "v1", 2, 0, 10),
		put("k1", "v2", 3, 5, 20), // concurrent with the first: either order is fine
		get("k0", "v1", 2, 3, 30, 40),
		{Kind: opDelete, Key: "k1", Deleted: 1, Rev: 4, Call: 50, Return: 60},
		get("k1", "", 0, 4, 70, 80),
		{Kind: opCAS, Key: "k0", Expect: "v1", Arg: "v3", Succeeded: true, Rev: 5, Call: 90, Return: 100},
		{Kind: opCAS, Key: "k0", Expect: "v1", Arg: "v4", Succeeded: false, Rev: 5, Call: 110, Return: 120},
		{Kind: opGrant, LeaseID: 77, Rev: 5, Call: 130, Return: 140},
		{Kind: opPut, Key: "k1", Arg: "v5", Lease: 77, Rev: 6, Call: 150, Return: 160},
		{Kind: opRevoke, Lease: 77, Rev: 7, Call: 170, Return: 180},
		get("k1", "", 0, 7, 190, 200),
		{Kind: opPut, Key: "k0", Arg: "v6", Pending: true, Call: 210}, // no answer: may have happened
		get("k0", "v3", 5, 7, 220, 230),
		{Kind: opSerializableGet, Key: "k0", Found: true, Out: "stale", Rev: 1, Call: 240, Return: 250},
	}
	f, res := checkHistory(ok, 10)
	require.Nil(t, f)
	require.Equal(t, checkOK, res)

	cases := map[string][]Op{
		"a value never written": {put("k0", "v1", 2, 0, 10), get("k0", "v9", 2, 2, 20, 30)},
		"a stale read":          {put("k0", "v1", 2, 0, 10), put("k0", "v2", 3, 20, 30), get("k0", "v1", 2, 2, 40, 50)},
		"a revision skipped":    {put("k0", "v1", 2, 0, 10), put("k0", "v2", 4, 20, 30)},
		"a lost put":            {put("k0", "v1", 2, 0, 10), get("k0", "", 0, 2, 20, 30)},
		"a CAS that lied":       {put("k0", "v1", 2, 0, 10), {Kind: opCAS, Key: "k0", Expect: "v1", Arg: "v2", Succeeded: false, Rev: 2, Call: 20, Return: 30}},
	}
	for name, h := range cases {
		f, res := checkHistory(h, 3)
		require.NotNil(t, f, name)
		require.Equal(t, checkViolated, res, name)
		require.Equal(t, schedule.FailureLinearizability, f.Kind)
		require.Equal(t, "linearizability: etcd kv", f.Signature)
	}
}

// A stored linearizability failure of etcd draws its own history: the
// detail's JSON line read back and checked against etcd's key space.
func TestVisualizeHistoryOfADetail(t *testing.T) {
	put := Op{Kind: opPut, Key: "k0", Arg: "v1", Rev: 2, Call: 0, Return: 10}
	bad := Op{Kind: opGet, Key: "k0", Found: true, Out: "v9", Mod: 2, Rev: 2, Call: 20, Return: 30}
	f, res := checkHistory([]Op{put, bad}, 3)
	require.Equal(t, checkViolated, res)
	path := filepath.Join(t.TempDir(), "h.html")
	require.NoError(t, (&Factory{}).VisualizeHistory(f.Detail, path))
	page, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Contains(t, string(page), "put")
	require.EqualError(t, (&Factory{}).VisualizeHistory("n1 exited", path), "the failure's detail has no client history")
}

func TestAlarmLines(t *testing.T) {
	for line, want := range map[string]string{
		`panic: runtime error: index out of range [5] with length 3`:                                                          "panic: runtime error: index out of range [N] with length N",
		`{"level":"fatal","ts":"2026-11-27T17:40:22.914Z","caller":"x.go:1","msg":"failed to apply","id":"8e9e05c52164694d"}`: "failed to apply",
		`2026-11-27 17:28:21.523801 C | etcdserver: read wal error (unexpected EOF) from 8e9e05c52164694d`:                    "etcdserver: read wal error (unexpected EOF) from ID",
	} {
		require.True(t, isAlarm(line), line)
		require.Equal(t, want, alarmSignature(line))
	}
	require.False(t, isAlarm(`{"level":"warn","msg":"slow fdatasync"}`))
}

// A fuzzer killed by SIGKILL leaves its members running; the next
// factory on the same state directory kills them and removes the
// directory.
func TestStaleMembersAreReaped(t *testing.T) {
	state := t.TempDir()
	// A "member" of a dead owner: a process in a group of its own.
	cmd := exec.Command("sleep", "60")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(t, cmd.Start())
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	dead := exec.Command("true")
	require.NoError(t, dead.Run()) // a pid that is gone now
	dir := filepath.Join(state, strconv.Itoa(dead.Process.Pid))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "sys-1", "x1", "n1"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "owner"), []byte(strconv.Itoa(dead.Process.Pid)+" 1\n"), 0o644))
	pg := cmd.Process.Pid
	require.NoError(t, os.WriteFile(filepath.Join(dir, "pids"), []byte(strconv.Itoa(pg)+" "+strconv.FormatUint(osproc.StartTime(pg), 10)+"\n"), 0o644))

	cfg := DefaultConfig()
	cfg.Binary = "/bin/true" // never run: the factory only reaps
	f, err := NewFactory(cfg, Options{StateDir: state})
	require.NoError(t, err)
	defer f.Close()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the stale member was not killed")
	}
	_, err = os.Stat(dir)
	require.True(t, os.IsNotExist(err), "the dead owner's directory is still there")
}

// A duplicate step copies a held raft message but never a forwarded
// proposal (etcd would apply both copies: a put twice, an extra revision
// the linearizability check sees): it counts the other messages only,
// and with none of them the step is skipped.
func TestForwardedProposalsAreNotDuplicated(t *testing.T) {
	prop := &held{msg: 1, from: 2, to: 0, m: &raftpb.Message{Type: raftpb.MessageType_MsgProp.Enum()}}
	app := &held{msg: 2, from: 1, to: 0, m: &raftpb.Message{Type: raftpb.MessageType_MsgAppResp.Enum()}}
	e := &execution{inbox: [][]*held{{prop, app}, nil, nil}, nextMsg: 2}
	e.duplicateAt(0, 1)
	require.Len(t, e.inbox[0], 3)
	require.Equal(t, raftpb.MessageType_MsgAppResp, e.inbox[0][2].m.GetType(), "the first duplicable message is the answer")
	require.Equal(t, schedule.EvDuplicate, e.trace[0].Kind)

	e = &execution{inbox: [][]*held{{prop}, nil, nil}, nextMsg: 1}
	e.duplicateAt(0, 1)
	require.Len(t, e.inbox[0], 1)
	require.Equal(t, 1, e.skipped)
	require.Equal(t, schedule.EvSkip, e.trace[0].Kind)
}
