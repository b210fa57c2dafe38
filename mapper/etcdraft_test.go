package mapper_test

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/adapters/etcdraft"
	"github.com/modelfuzz/modelfuzz/mapper"
	"github.com/modelfuzz/modelfuzz/schedule"
)

var debugRun = -1

type divergenceStats struct {
	runs, diverged int
	reasons        map[string]int // "Action: reason" → executions
	violations     map[string]int // model invariant → executions
	example        map[string]string
	actions        map[string]int // model action (ConfirmRead split by stale) → times mapped
}

// etcdraftParams is what the mapper needs of an adapter configuration.
func etcdraftParams(c etcdraft.Config) mapper.EtcdraftParams {
	return mapper.EtcdraftParams{Nodes: c.Nodes, Spares: c.Spares, BootLog: c.Bootstrap == etcdraft.BootstrapLog,
		PreVote: c.PreVote, CheckQuorum: c.CheckQuorum, ReadStates: true, Appends: true}
}

// simulateEtcdraft runs the adapter on random inputs, maps every trace and
// replays it on raft.tla.
func simulateEtcdraft(t *testing.T, cfg etcdraft.Config, p schedule.Shape, runs int, seed uint64) (divergenceStats, *mapper.Etcdraft) {
	t.Helper()
	fac, err := etcdraft.NewFactory(cfg)
	require.NoError(t, err)
	sys, err := fac.New()
	require.NoError(t, err)
	mp := mapper.NewEtcdraft(etcdraftParams(cfg))
	s := newSim(t, "raft.tla", mp.Consts())
	g, err := schedule.NewGenerator(fac.Spec(), p)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(seed, seed))
	ds := divergenceStats{reasons: map[string]int{}, violations: map[string]int{}, example: map[string]string{}, actions: map[string]int{}}
	for n := 0; n < runs; n++ {
		in := g.Random(r)
		ex, err := sys.Execute(in)
		require.NoError(t, err)
		if cfg.Inject == "" {
			require.Empty(t, ex.Failures, "the correct adapter failed on %s", schedule.EncodeInput(in))
		}
		acts, err := mp.Map(in, ex)
		require.NoError(t, err)
		res := replay(t, s, acts)
		ds.runs++
		for _, a := range acts {
			name := a.Name
			if a.Name == "ConfirmRead" && a.Params["stale"] == true {
				name += " stale"
			}
			if a.Params["twin"] == true {
				name += " twin"
			}
			ds.actions[name]++
		}
		seen := map[string]bool{}
		for _, v := range res.Violations {
			if !seen[v.Invariant] {
				seen[v.Invariant] = true
				ds.violations[v.Invariant]++
			}
		}
		if d := res.Divergence; d != nil {
			ds.diverged++
			key := d.Action + ": " + schedule.BlankNumbers(d.Reason)
			ds.reasons[key]++
			if _, ok := ds.example[key]; !ok {
				ds.example[key] = fmt.Sprintf("run %d, action %d %s %v at step %d", n, d.Index, acts[d.Index].Name,
					acts[d.Index].Params, acts[d.Index].Step)
				if debugRun == n {
					for _, e := range ex.Trace {
						t.Logf("trace %d n%d %s %s peer %d %v", e.Step, e.Node+1, e.Kind, e.Type, e.Peer+1, e.Args)
					}
					for k, a := range acts[:d.Index+1] {
						t.Logf("act %d step %d %s %v", k, a.Step, a.Name, a.Params)
					}
				}
			}
		}
	}
	return ds, mp
}

func (ds divergenceStats) log(t *testing.T, mp *mapper.Etcdraft) {
	t.Helper()
	t.Logf("%d of %d executions diverge", ds.diverged, ds.runs)
	keys := make([]string, 0, len(ds.reasons))
	for k := range ds.reasons {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("  %4d  %s (e.g. %s)", ds.reasons[k], k, ds.example[k])
	}
	for inv, c := range ds.violations {
		t.Logf("  model invariant %s violated in %d executions", inv, c)
	}
	u := mp.Unmapped()
	for _, k := range mp.UnmappedKeys() {
		t.Logf("  unmapped %-40s %d", k, u[k])
	}
}

// The correct adapter's executions replay on the model: no divergence, no
// model invariant violated.
func TestEtcdraftReplaysOnModel(t *testing.T) {
	runs := 400
	if testing.Short() {
		runs = 100
	}
	p := schedule.Shape{Steps: 100, MaxMessages: 5, CrashQuota: 10, Requests: 5, Actions: "deliver,crash,restart,timeout,request"}
	ds, mp := simulateEtcdraft(t, etcdraft.ClassicConfig(), p, runs, 7)
	ds.log(t, mp)
	require.Zero(t, ds.diverged, "divergences: %v", ds.reasons)
	require.Empty(t, ds.violations)
	require.NotContains(t, mp.Unmapped(), "heartbeat with an unknown commit term")
}

func TestEtcdraftConsts(t *testing.T) {
	require.Equal(t, []string{"Servers={1,2,3}", "InitVoters={1,2,3}", `Bootstrap="snapshot"`},
		mapper.NewEtcdraft(etcdraftParams(etcdraft.ClassicConfig())).Consts())
	require.Equal(t, []string{"Servers={1}", "InitVoters={1}", `Bootstrap="snapshot"`}, mapper.NewEtcdraft(mapper.EtcdraftParams{Nodes: 1}).Consts())
	require.Equal(t, []string{"Servers={1,2,3,4}", "InitVoters={1,2,3}", `Bootstrap="log"`},
		mapper.NewEtcdraft(etcdraftParams(etcdraft.DefaultConfig())).Consts())
}

// Reconfiguration replays on the model: simple and joint changes,
// learners, a spare that joins, the library's bootstrap from the log, and
// every other action of the adapter, on its defaults (the Node API at half
// the nodes, asynchronous storage writes at the other half).
func TestEtcdraftConfChangesReplayOnModel(t *testing.T) {
	runs := 1000
	if testing.Short() {
		runs = 200
	}
	p := schedule.Shape{Steps: 150, MaxMessages: 5, CrashQuota: 4, Requests: 8,
		Actions: "deliver,crash,restart,timeout,request,drop,duplicate,deliver-one,partition,heal,conf-change,transfer-leader,read,tick"}
	for _, cfg := range []etcdraft.Config{etcdraft.DefaultConfig(), withAPI(etcdraft.DefaultConfig(), etcdraft.APIRawNode, etcdraft.BootstrapSnapshot)} {
		ds, mp := simulateEtcdraft(t, cfg, p, runs, 13)
		ds.log(t, mp)
		require.Zero(t, ds.diverged, "api %s, bootstrap %s: divergences: %v", cfg.API, cfg.Bootstrap, ds.reasons)
		require.Empty(t, ds.violations)
		for _, a := range []string{"ProposeConf", "ApplyConf", "FollowerProgress"} {
			require.Positive(t, ds.actions[a], a)
		}
	}
}

func withAPI(c etcdraft.Config, api, boot string) etcdraft.Config {
	c.API, c.Bootstrap = api, boot
	return c
}

// A seeded bug shows as divergences: with forget-hardstate a restarted node
// votes again in a term it already voted in.
func TestEtcdraftSeededBugDiverges(t *testing.T) {
	cfg := etcdraft.ClassicConfig()
	cfg.Inject = etcdraft.InjectForgetHardState
	p := schedule.Shape{Steps: 100, MaxMessages: 5, CrashQuota: 10, Requests: 5, Actions: "deliver,crash,restart,timeout,request"}
	ds, _ := simulateEtcdraft(t, cfg, p, 100, 7)
	t.Logf("%d of %d executions diverge: %v", ds.diverged, ds.runs, ds.reasons)
	require.Greater(t, ds.diverged, 10)
}

// Reads replay on the model too, with the network's faults that touch
// them: copies and losses of ReadIndex requests, messages out of order,
// partitions, crashes, leader transfers; safe and lease-based reads; the
// synchronous and asynchronous Ready loops. The campaign's settings under
// raft.tla (no spare: reconfiguration has no model action).
func TestEtcdraftReadsReplayOnModel(t *testing.T) {
	runs := 1000
	if testing.Short() {
		runs = 200
	}
	p := schedule.Shape{Steps: 100, MaxMessages: 5, CrashQuota: 10, Requests: 5,
		Actions: "deliver,crash,restart,timeout,request,drop,duplicate,deliver-one,partition,heal,transfer-leader,read,tick"}
	for _, readOnly := range []string{etcdraft.ReadSafe, etcdraft.ReadMixed} {
		cfg := etcdraft.DefaultConfig()
		cfg.Spares, cfg.Bootstrap, cfg.API, cfg.ReadOnly = 0, etcdraft.BootstrapSnapshot, etcdraft.APIRawNode, readOnly
		ds, mp := simulateEtcdraft(t, cfg, p, runs, 11)
		ds.log(t, mp)
		require.Zero(t, ds.diverged, "read-only %s: divergences: %v", readOnly, ds.reasons)
		require.Empty(t, ds.violations, "read-only %s", readOnly)
		// The reads were mapped, not left out, stale answers too.
		require.NotContains(t, mp.Unmapped(), "readindex at a non-leader")
		t.Logf("read-only %s: ConfirmRead %d (stale %d, twin %d), StaleAnswer %d (twin %d)", readOnly,
			ds.actions["ConfirmRead"]+ds.actions["ConfirmRead stale"]+ds.actions["ConfirmRead stale twin"],
			ds.actions["ConfirmRead stale"]+ds.actions["ConfirmRead stale twin"], ds.actions["ConfirmRead stale twin"],
			ds.actions["StaleAnswer"]+ds.actions["StaleAnswer twin"], ds.actions["StaleAnswer twin"])
		if readOnly == etcdraft.ReadSafe {
			require.Positive(t, ds.actions["ConfirmRead stale"])
			require.Positive(t, ds.actions["StaleAnswer"])
		}
	}
}

// Writes a node's storage holds (hold-writes, persist) map without
// divergence on both Ready loops: a held write's answer is found where the
// write becomes durable, and an execution whose crash loses held writes is
// mapped up to that crash. Every action raft.tla maps is in use.
func TestEtcdraftHeldWritesReplayOnModel(t *testing.T) {
	runs := 600
	if testing.Short() {
		runs = 150
	}
	p := schedule.Shape{Steps: 120, MaxMessages: 5, CrashQuota: 4, Requests: 6,
		Actions: "deliver,crash,restart,timeout,request,drop,duplicate,deliver-one,partition,heal,transfer-leader,read,tick,hold-writes,persist"}
	for _, async := range []string{"off", "on", "mixed"} {
		cfg := etcdraft.DefaultConfig()
		cfg.Spares, cfg.Bootstrap, cfg.API, cfg.AsyncStorageWrites = 0, etcdraft.BootstrapSnapshot, etcdraft.APIRawNode, async
		ds, mp := simulateEtcdraft(t, cfg, p, runs, 13)
		ds.log(t, mp)
		require.Zero(t, ds.diverged, "async %s: divergences: %v", async, ds.reasons)
		require.Empty(t, ds.violations, "async %s", async)
		u := mp.Unmapped()
		t.Logf("async %s: held %d, persisted %d, events after lost writes %d", async, u[schedule.EvHeld], u[schedule.EvPersist], u["after a crash lost held writes"])
		require.Positive(t, u[schedule.EvPersist], "async %s: held writes became durable", async)
		require.Positive(t, u["after a crash lost held writes"], "async %s: a crash lost held writes", async)
	}
}

// A ReadIndex request to a crashed process was never in flight: the
// process adapter reports it as sent, then dropped; neither is mapped.
func TestEtcdraftReadToACrashedProcess(t *testing.T) {
	msg := func(kind string, node, peer, id int) schedule.Event {
		return schedule.Event{Step: 1, Kind: kind, Node: node, Peer: peer, Msg: id, Type: "MsgReadIndex",
			Args: []schedule.Arg{schedule.I("term", 0), schedule.I("logterm", 0), schedule.I("index", 0),
				schedule.I("commit", 0), schedule.I("reject", 0), schedule.I("rejecthint", 0)}}
	}
	tr := schedule.Trace{
		{Step: 0, Kind: schedule.EvCrash, Node: 2, Peer: -1, Type: schedule.EvCrash},
		msg(schedule.EvSend, 1, 2, 5),
		{Step: 1, Kind: "drop", Node: 2, Peer: 1, Msg: 5, Type: "MsgReadIndex"},
		msg(schedule.EvSend, 1, 0, 6),
		msg(schedule.EvRecv, 0, 1, 6),
	}
	mp := mapper.NewEtcdraft(mapper.EtcdraftParams{Nodes: 3, ReadStates: true})
	acts, err := mp.Map(nil, &schedule.Execution{Trace: tr})
	require.NoError(t, err)
	var names []string
	for _, a := range acts {
		names = append(names, a.Name)
	}
	require.Equal(t, []string{"Crash", "SendReadIndex", "HandleReadIndex"}, names)
	require.Equal(t, 1, mp.Unmapped()["drop of a MsgReadIndex never in flight"])
	require.Equal(t, map[string]any{"i": int64(1), "j": int64(2), "late": false, "copies": int64(0), "twin": false}, acts[2].Params)
}

// Stale answers: a leader confirms a read on one follower's answer while
// its heartbeat to the other follower is still on its way, and a network
// copy of the read's request too (twins); the crash of the follower that
// holds the heartbeat ends the last stale answer.
func TestEtcdraftStaleAnswers(t *testing.T) {
	fields := func(extra ...schedule.Arg) []schedule.Arg {
		return append([]schedule.Arg{schedule.I("term", 1), schedule.I("logterm", 0), schedule.I("index", 0),
			schedule.I("commit", 1), schedule.I("reject", 0), schedule.I("rejecthint", 0), schedule.S("entries", "")}, extra...)
	}
	msg := func(step int, kind, typ string, node, peer, id int, extra ...schedule.Arg) schedule.Event {
		return schedule.Event{Step: step, Kind: kind, Node: node, Peer: peer, Msg: id, Type: typ, Args: fields(extra...)}
	}
	read := schedule.I("read", 1)
	tr := schedule.Trace{
		{Step: 0, Kind: "role", Node: 0, Peer: -1, Type: "leader", Args: []schedule.Arg{schedule.I("term", 1)}},
		msg(1, schedule.EvSend, "MsgReadIndex", 1, 0, 10),
		{Step: 1, Kind: schedule.EvDuplicate, Node: 0, Peer: 1, Msg: 11, Type: "MsgReadIndex", Args: []schedule.Arg{schedule.I(schedule.ArgCopyOf, 10)}},
		msg(2, schedule.EvRecv, "MsgReadIndex", 0, 1, 10),
		msg(2, schedule.EvSend, "MsgHeartbeat", 0, 1, 12, read),
		msg(2, schedule.EvSend, "MsgHeartbeat", 0, 2, 13, read),
		msg(3, schedule.EvRecv, "MsgHeartbeat", 1, 0, 12, read),
		msg(3, schedule.EvSend, "MsgHeartbeatResp", 1, 0, 14, read),
		msg(4, schedule.EvRecv, "MsgHeartbeatResp", 0, 1, 14, read),
		msg(4, schedule.EvSend, "MsgReadIndexResp", 0, 1, 15),
		{Step: 5, Kind: schedule.EvCrash, Node: 2, Peer: -1, Type: schedule.EvCrash},
	}
	mp := mapper.NewEtcdraft(mapper.EtcdraftParams{Nodes: 3, ReadStates: true})
	acts, err := mp.Map(nil, &schedule.Execution{Trace: tr})
	require.NoError(t, err)
	var got []string
	for _, a := range acts {
		s := a.Name
		for _, k := range []string{"stale", "more", "twin"} {
			if v, ok := a.Params[k]; ok {
				s += fmt.Sprintf(" %s=%v", k, v)
			}
		}
		got = append(got, s)
	}
	require.Equal(t, []string{"Timeout", "BecomeLeader", "SendReadIndex", "DuplicateReadIndex",
		"HandleReadIndex twin=false", "HandleAppendRequest", "ConfirmRead stale=true twin=true",
		"Crash", "StaleAnswer more=false twin=false"}, got)
}

// A leader's appends map entry by entry, configuration changes with the
// change they make; the empty entry of its term is BecomeLeader's. An
// entry the model cannot read is an error, not a guess.
func TestEtcdraftAppends(t *testing.T) {
	role := schedule.Event{Step: 0, Kind: schedule.EvRole, Node: 0, Peer: -1, Type: schedule.RoleLeader, Args: []schedule.Arg{schedule.I("term", 2)}}
	appendEv := func(entries string) schedule.Event {
		return schedule.Event{Step: 1, Kind: schedule.EvAppend, Node: 0, Peer: -1, Type: schedule.EvAppend,
			Args: []schedule.Arg{schedule.I(schedule.ArgIndex, 4), schedule.S(schedule.ArgEntries, entries)}}
	}
	mp := mapper.NewEtcdraft(mapper.EtcdraftParams{Nodes: 3, Spares: 1, BootLog: true, Appends: true})
	acts, err := mp.Map(nil, &schedule.Execution{Trace: schedule.Trace{role, appendEv("2:,2:conf:joint v4 r3,2:conf:leave,2:v=1,2:conf:l2")}})
	require.NoError(t, err)
	var got []string
	for _, a := range acts {
		got = append(got, fmt.Sprintf("%s %v", a.Name, a.Params))
	}
	require.Equal(t, []string{
		"Timeout map[i:1]",
		"BecomeLeader map[i:1 term:2]",
		"ProposeConf map[ch:map[kind:joint learners:[] remove:[3] voters:[4]] i:1 value:conf:joint v4 r3]",
		"ProposeConf map[ch:map[kind:leave learners:[] remove:[] voters:[]] i:1 value:conf:leave]",
		"ClientRequest map[i:1 value:v=1]",
		"ProposeConf map[ch:map[kind:simple learners:[2] remove:[] voters:[]] i:1 value:conf:l2]",
	}, got)

	_, err = mp.Map(nil, &schedule.Execution{Trace: schedule.Trace{role, appendEv("2:conf:u4")}})
	require.ErrorContains(t, err, `change "u4": raft.tla models voters (v), learners (l) and removals (r)`)
}
