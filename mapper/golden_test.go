package mapper_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/adapters/etcdraft"
	"github.com/modelfuzz/modelfuzz/adapters/microbench"
	"github.com/modelfuzz/modelfuzz/mapper"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// Golden files: testdata/<case>.txt holds a trace and what the mapper makes
// of it. The head (comments, then "mapper <name> <params as JSON>") and the
// "-- trace --" section (schedule.EncodeTrace) are the mapper's input; the
// "-- actions --" section (one model action per line: step, name, params
// in sorted order) and, for etcdraft, the "-- unmapped --" section (the
// Unmapped counts) are its expected output.
//
// After a change of a mapper, -update rewrites the expected output from the
// stored traces; review the diff. After a change of an adapter,
// TestGoldenTracesAreCurrent fails, and -traces runs the cases' inputs on
// the adapters again and rewrites the whole files.
var (
	update = flag.Bool("update", false, "rewrite the expected model actions in testdata/ from the stored traces")
	traces = flag.Bool("traces", false, "run the golden cases on the adapters again and rewrite testdata/ (traces and expected actions)")
)

// goldenCase is an input executed on an adapter: the source of the trace in
// testdata/<name>.txt.
type goldenCase struct {
	name  string
	about string
	cfg   any    // etcdraft.Config or microbench.Config
	steps string // as schedule.Step.String writes them, separated by commas
}

var goldenCases = []goldenCase{
	{
		name: "etcdraft-replicate",
		about: "n1 wins an election in term 1; a request at the leader and one at a follower (forwarded as\n" +
			"MsgProp) are replicated and committed everywhere; every node snapshots at index 4.",
		cfg: etcdraft.ClassicConfig(),
		steps: "p0 timeout, p1 deliver(1), p0 deliver(1), p1 deliver(20), p2 deliver(20), p0 deliver(20), " +
			"p0 request(7), p1 request(8), p1 deliver(20), p2 deliver(20), p0 deliver(20), " +
			"p1 deliver(20), p2 deliver(20), p0 deliver(20), p1 deliver(20), p2 deliver(20), " +
			"p0 deliver(20)",
	},
	{
		name: "etcdraft-crash-snapshot",
		about: "n3 crashes while the leader n1 commits and compacts three requests; restarted, n3 rejects\n" +
			"appends and gets a snapshot (MsgSnap, install). Then n1 crashes, n2 runs for term 2 and\n" +
			"loses n3's vote, rejects a stale append, and n1 restarts.",
		cfg: etcdraft.ClassicConfig(),
		steps: "p0 timeout, p1 deliver(1), p0 deliver(1), p1 deliver(5), p2 deliver(5), p0 deliver(5), " +
			"p2 crash, p0 request(5), p1 deliver(5), p0 deliver(5), p0 request(6), p1 deliver(5), " +
			"p0 deliver(5), p0 request(7), p1 deliver(5), p0 deliver(5), p1 deliver(5), p2 restart, " +
			"p0 deliver(5), p2 deliver(5), p0 deliver(5), p2 deliver(5), p0 deliver(5), p2 deliver(5), " +
			"p0 deliver(5), p0 crash, p1 timeout, p2 deliver(5), p1 deliver(5), p0 restart, " +
			"p0 deliver(5), p1 deliver(5), p0 deliver(5), p2 deliver(5), p1 deliver(5)",
	},
	{
		name: "etcdraft-prevote",
		about: "PreVote and CheckQuorum: n1 wins a pre-vote, then the election; n2's pre-vote later gets\n" +
			"no answer from nodes that hear from their leader, and n2 falls back to follower.",
		cfg: etcdraft.Config{Nodes: 3, SnapshotEvery: 3, PreVote: true, CheckQuorum: true},
		steps: "p0 timeout, p1 deliver(1), p0 deliver(1), p1 deliver(1), p0 deliver(1), p1 deliver(5), " +
			"p2 deliver(5), p0 deliver(5), p1 timeout, p2 deliver(5), p0 deliver(5), p1 deliver(5)",
	},
	{
		name: "etcdraft-checkquorum",
		about: "CheckQuorum without PreVote: n2 runs for term 2 while n1 leads; n1 and n3 ignore its vote\n" +
			"request in their leader lease, n2 rejects n1's heartbeats, and n1 steps down on the answers.",
		cfg: etcdraft.Config{Nodes: 3, SnapshotEvery: 3, CheckQuorum: true},
		steps: "p0 timeout, p1 deliver(1), p0 deliver(1), p1 deliver(5), p2 deliver(5), p0 deliver(5), " +
			"p1 timeout, p2 deliver(5), p0 deliver(5), p1 deliver(5), p0 deliver(5), p2 deliver(5)",
	},
	{
		name: "etcdraft-reads",
		about: "Reads (bugs/etcdraft/readindex-duplicate-ctx.json on the unpatched library): n2's ReadIndex\n" +
			"request is copied in the leader n1's inbox; n1 takes it, n2's heartbeat answer confirms it;\n" +
			"n1 hands its leadership to n2, which commits a put; n1, deposed without knowing it, takes a\n" +
			"read of its own, then the copy of n2's request, and n3's late answers confirm neither.",
		cfg: etcdraft.Config{Nodes: 3, SnapshotEvery: 3, PreVote: true, CheckQuorum: true, MaxInflightMsgs: 2,
			MaxSizePerMsg: 1, ElectionTick: 30, HeartbeatTick: 5, ReadOnly: etcdraft.ReadSafe, AsyncStorageWrites: "off",
			MaxUncommittedSize: 64, StepDownOnRemoval: true, API: etcdraft.APIRawNode, Bootstrap: etcdraft.BootstrapSnapshot},
		steps: "p0 timeout, p1 deliver(1), p0 deliver(1), p1 deliver(1), p0 deliver(1), p1 deliver(5), " +
			"p2 deliver(5), p0 deliver(5), p1 deliver(5), p2 deliver(5), p0 deliver(5), p1 read, " +
			"p0 duplicate(1), p0 deliver(1), p1 deliver(5), p2 deliver(5), p0 deliver-one(3), " +
			"p0 transfer-leader(p1), p1 deliver(5), p2 deliver(5), p1 deliver(5), p2 deliver(5), " +
			"p1 deliver(5), p1 request(7), p2 deliver(5), p1 deliver(5), p0 read, p0 deliver(1), p0 deliver(3)",
	},
	{
		name: "etcdraft-reconfig",
		about: "The library's bootstrap from the log, with a spare (n4): n1 wins a pre-vote and the election,\n" +
			"adds n4 as a learner and sends it its snapshot at index 3, which n4 ignores (its configuration\n" +
			"does not have n4); then a joint change that makes n4 a voter and removes n3, which the leader\n" +
			"leaves by itself, and n4 installs the snapshot at index 6.",
		cfg: etcdraft.Config{Nodes: 3, Spares: 1, SnapshotEvery: 3, PreVote: true, CheckQuorum: true, MaxInflightMsgs: 2,
			MaxSizePerMsg: 1, ElectionTick: 30, HeartbeatTick: 5, ReadOnly: etcdraft.ReadSafe, AsyncStorageWrites: "off",
			MaxUncommittedSize: 64, StepDownOnRemoval: true, API: etcdraft.APIRawNode, Bootstrap: etcdraft.BootstrapLog},
		steps: "p0 timeout, p1 deliver(5), p2 deliver(5), p0 deliver(5), p1 deliver(5), p2 deliver(5), p0 deliver(5), " +
			"p0 conf-change(add-learner 3), p1 deliver(5), p2 deliver(5), p0 deliver(5), p1 deliver(5), p2 deliver(5), " +
			"p3 deliver(5), p0 deliver(5), p3 deliver(5), p0 deliver(5), p0 conf-change(auto add-voter 3, remove 2), " +
			"p1 deliver(5), p2 deliver(5), p3 deliver(5), p0 deliver(5), p1 deliver(5), p2 deliver(5), p3 deliver(5), " +
			"p0 deliver(5), p1 deliver(5), p3 deliver(5), p0 deliver(5), p1 deliver(5), p3 deliver(5)",
	},
	{
		name: "etcdraft-readindexresp-term",
		about: "A term learnt from a read's answer (PCTCP, raft.tla, seed 1, iteration 11,091, minimized): n2 wins\n" +
			"term 1 and hands its leadership to n1, which wins term 2; n3, still in term 1, asks n2 for two reads;\n" +
			"n2 forwards the first to n1, whose MsgReadIndexResp of term 2 moves n3 to term 2 (UpdateTerm).\n" +
			"n2's heartbeat of term 1 then reaches n3, which refuses it: a stale heartbeat, not a divergence.",
		cfg: etcdraft.Config{Nodes: 3, SnapshotEvery: 3, PreVote: true, CheckQuorum: true, MaxInflightMsgs: 2,
			MaxSizePerMsg: 1, ElectionTick: 30, HeartbeatTick: 5, ReadOnly: etcdraft.ReadSafe, AsyncStorageWrites: "mixed",
			MaxUncommittedSize: 64, StepDownOnRemoval: true, API: etcdraft.APIRawNode, Bootstrap: etcdraft.BootstrapSnapshot},
		steps: "p1 timeout, p0 deliver-one(1), p1 deliver-one(1), p0 deliver-one(1), p1 deliver-one(1), p0 deliver-one(1), " +
			"p1 deliver-one(1), p0 deliver-one(1), p2 deliver-one(3), p1 deliver-one(1), p2 deliver-one(1), p1 deliver-one(1), " +
			"p1 transfer-leader(p0), p0 deliver-one(2), p1 deliver-one(2), p0 deliver-one(3), p1 deliver-one(1), " +
			"p0 deliver-one(1), p1 deliver-one(1), p0 deliver-one(2), p2 drop(1), p2 read, p2 read, p1 deliver-one(4), " +
			"p0 deliver-one(2), p1 deliver-one(5), p0 deliver-one(2), p2 deliver-one(9), p2 deliver-one(1)",
	},
	{
		name: "etcdraft-held-vote-released",
		about: "A held vote released in the step of a stale request (POS, raft.tla, seed 2, iteration 908, minimized):\n" +
			"n3 holds its writes and grants n2's vote of term 2, its answer waiting for the write; the hold ends in\n" +
			"the step where n2's duplicate vote request of term 1 reaches n3, which ignores it. The answer released\n" +
			"then belongs to the term-2 request, not to the stale one.",
		cfg: etcdraft.Config{Nodes: 3, SnapshotEvery: 3, PreVote: true, CheckQuorum: true, MaxInflightMsgs: 2,
			MaxSizePerMsg: 1, ElectionTick: 30, HeartbeatTick: 5, ReadOnly: etcdraft.ReadSafe, AsyncStorageWrites: "mixed",
			MaxUncommittedSize: 64, StepDownOnRemoval: true, API: etcdraft.APIRawNode, Bootstrap: etcdraft.BootstrapSnapshot},
		steps: "p1 timeout, p0 deliver-one(1), p2 drop(1), p2 hold-writes(17), p1 duplicate(1), p1 deliver-one(1), " +
			"p1 timeout, p1 deliver-one(1), p2 deliver-one(3), p2 hold-writes(3), p2 deliver-one(2), p2 transfer-leader(p1), " +
			"p2 deliver-one(1)",
	},
	{
		name: "etcdraft-held-stepdown-progress",
		about: "A leader steps down in a Ready its storage holds (PCTCP, raft.tla, seed 1, iteration 690, minimized):\n" +
			"n2, leader of term 2 with CheckQuorum, hears from no quorum while its writes are held and steps down\n" +
			"in the library, which resets its progress tracker; its role event waits with the held Ready. The reset\n" +
			"progress is its follower term's, not a leader's belief, and is not reported.",
		cfg: etcdraft.Config{Nodes: 3, Spares: 1, SnapshotEvery: 3, PreVote: true, CheckQuorum: true, MaxInflightMsgs: 2,
			MaxSizePerMsg: 1, ElectionTick: 30, HeartbeatTick: 5, ReadOnly: etcdraft.ReadSafe, AsyncStorageWrites: "mixed",
			MaxUncommittedSize: 64, StepDownOnRemoval: true, API: etcdraft.APIRawNode, Bootstrap: etcdraft.BootstrapLog},
		steps: "p1 timeout, p0 deliver-one(1), p1 deliver-one(1), p0 deliver-one(1), p1 deliver-one(1), p0 deliver-one(1), " +
			"p1 deliver-one(1), p1 deliver-one(1), p1 deliver-one(1), p2 deliver-one(1), p2 duplicate(1), p2 deliver-one(1), " +
			"p1 deliver-one(1), p0 deliver-one(1), p1 deliver-one(1), p2 deliver-one(1), p1 deliver-one(1), p0 deliver-one(1), " +
			"p1 deliver-one(1), p1 deliver-one(1), p0 deliver-one(1), p1 deliver-one(1), p0 crash, p0 restart, p0 crash, " +
			"p1 hold-writes(1), p1 tick(39)",
	},
	{
		name: "etcdraft-removed-answer",
		about: "A response from outside the receiver's configuration (the campaign divergence \"LeaderStepDown: not\n" +
			"enabled\" it caused): n2 leads term 1 and removes n1, which does not learn it; n1 runs for term 2, and\n" +
			"its answer of term 2 to n2's stale append is dropped by RawNode.Step (n1 has no progress at n2): n2 keeps\n" +
			"its term, then steps down in it (CheckQuorum) while n3's answers wait.",
		cfg: etcdraft.Config{Nodes: 3, SnapshotEvery: 3, CheckQuorum: true, MaxInflightMsgs: 2,
			MaxSizePerMsg: 1, ElectionTick: 30, HeartbeatTick: 5, ReadOnly: etcdraft.ReadSafe, AsyncStorageWrites: "off",
			MaxUncommittedSize: 64, StepDownOnRemoval: true, API: etcdraft.APIRawNode, Bootstrap: etcdraft.BootstrapSnapshot},
		steps: "p1 timeout, p0 deliver-one(1), p1 deliver-one(1), p2 deliver(5), p0 deliver(5), p1 deliver(5), " +
			"p1 conf-change(remove 0), p2 deliver(5), p1 deliver(5), p2 deliver(5), p1 deliver(5), " +
			"p0 timeout, p0 deliver(5), p1 deliver(5), p1 tick(64)",
	},
	{
		name: "microbench-serve-reject",
		about: "A request before any worker registered is rejected; the next is served by worker-1 in two\n" +
			"tasks, terminated and flushed after its last task: done.",
		cfg: microbench.Config{Workers: 1, Tasks: 2},
		steps: "p0 request(1), p0 deliver(2), p1 deliver(1), p2 deliver(1), p0 request(2), p0 deliver(3), " +
			"p2 deliver(1), p1 deliver(1), p0 deliver(1), p2 deliver(3), p0 deliver(2), p1 request(3)",
	},
	{
		name: "microbench-flush-before-last",
		about: "The seeded bug flush-before-last: worker-1 handles the flush of request 1 right before its\n" +
			"last task and panics.",
		cfg: microbench.Config{Workers: 2, Tasks: 3, Inject: microbench.InjectFlushBeforeLast},
		steps: "p1 deliver(1), p2 deliver(1), p3 deliver(1), p0 deliver(5), p0 request(9), p0 deliver(1), " +
			"p2 deliver(1), p1 deliver(1), p2 deliver(5)",
	},
}

// parseSteps reads steps written as schedule.Step.String writes them,
// separated by commas: "p0 timeout, p1 deliver(1), p0 request(7)" (a
// conf-change's own commas stay in its step).
func parseSteps(t *testing.T, s string) []schedule.Step {
	t.Helper()
	var fields []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); len(fields) > 0 && !strings.HasPrefix(f, "p") {
			fields[len(fields)-1] += ", " + f
			continue
		}
		fields = append(fields, f)
	}
	var steps []schedule.Step
	for _, f := range fields {
		proc, act, _ := strings.Cut(f, " ")
		name, n, _ := strings.Cut(strings.TrimSuffix(act, ")"), "(")
		st := schedule.Step{Action: schedule.Action(name)}
		st.Process, _ = strconv.Atoi(strings.TrimPrefix(proc, "p"))
		switch st.Action {
		case schedule.Deliver:
			st.Messages, _ = strconv.Atoi(n)
		case schedule.Request:
			st.Value, _ = strconv.Atoi(n)
		case schedule.Drop, schedule.Duplicate, schedule.DeliverOne:
			st.K, _ = strconv.Atoi(n)
		case schedule.Tick, schedule.HoldWrites:
			st.N, _ = strconv.Atoi(n)
		case schedule.TransferLeader:
			st.To, _ = strconv.Atoi(strings.TrimPrefix(n, "p"))
		case schedule.ConfChange:
			st.Conf = n
		}
		require.Equal(t, f, st.String(), "a step of %q", s)
		steps = append(steps, st)
	}
	return steps
}

// golden runs the case's input on its adapter and returns the golden file
// up to its expected output: the head (comments, the mapper line, the
// trace) and the parsed trace.
func (c goldenCase) golden(t *testing.T) *goldenFile {
	t.Helper()
	var (
		fac    schedule.Factory
		name   string
		params any
		err    error
	)
	switch cfg := c.cfg.(type) {
	case etcdraft.Config:
		name, params = "etcdraft", etcdraftParams(cfg)
		fac, err = etcdraft.NewFactory(cfg)
	case microbench.Config:
		name, params = "microbench", mapper.MicrobenchParams{Workers: cfg.Workers, Tasks: cfg.Tasks}
		fac, err = microbench.NewFactory(cfg)
	default:
		t.Fatalf("case %s: no adapter for %T", c.name, c.cfg)
	}
	require.NoError(t, err)
	sys, err := fac.New()
	require.NoError(t, err)
	in := &schedule.Input{Steps: parseSteps(t, c.steps)}
	ex, err := sys.Execute(in)
	require.NoError(t, err)
	p, err := json.Marshal(params)
	require.NoError(t, err)
	line := "mapper " + name + " " + string(p)

	var b strings.Builder
	for _, l := range strings.Split(c.about, "\n") {
		b.WriteString("# " + l + "\n")
	}
	fmt.Fprintf(&b, "# The trace is this input of mapper/golden_test.go run on adapters/%s %s:\n", name, fac.Config())
	for _, l := range strings.Split(strings.TrimSpace(string(schedule.EncodeInput(in))), "\n") {
		b.WriteString("#   " + l + "\n")
	}
	for _, f := range ex.Failures {
		fmt.Fprintf(&b, "# The execution fails at step %d: %s\n", f.Step, f.Signature)
	}
	b.WriteString(line + "\n")
	b.WriteString(traceHeader)
	b.Write(schedule.EncodeTrace(ex.Trace))
	return &goldenFile{head: b.String(), mapper: line, trace: ex.Trace}
}

const (
	traceHeader    = "-- trace --\n"
	actionsHeader  = "-- actions --\n"
	unmappedHeader = "-- unmapped --\n"
)

// goldenFile is a parsed testdata file.
type goldenFile struct {
	head   string // everything before the expected output
	mapper string // the mapper line
	trace  schedule.Trace
	want   string // the expected output, from the actions header on
}

func readGolden(path string) (*goldenFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s := string(data)
	at := strings.Index(s, traceHeader)
	out := strings.Index(s, actionsHeader)
	if at < 0 || out < at {
		return nil, fmt.Errorf("%s: want a %q section, then an %q section", path, strings.TrimSpace(traceHeader), strings.TrimSpace(actionsHeader))
	}
	g := &goldenFile{head: s[:out], want: s[out:]}
	for _, l := range strings.Split(s[:at], "\n") {
		if strings.HasPrefix(l, "mapper ") {
			g.mapper = l
		}
	}
	if g.trace, err = schedule.DecodeTrace([]byte(s[at+len(traceHeader) : out])); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return g, nil
}

// goldenMapper is the mapper a golden file names, with the model it maps
// onto.
type goldenMapper struct {
	schedule.Mapper
	model  string
	consts []string
	etcd   *mapper.Etcdraft // the mapper again when it counts unmapped events
}

func newGoldenMapper(line string) (goldenMapper, error) {
	name, params, _ := strings.Cut(strings.TrimPrefix(line, "mapper "), " ")
	dec := json.NewDecoder(strings.NewReader(params))
	dec.DisallowUnknownFields()
	switch name {
	case "etcdraft":
		var p mapper.EtcdraftParams
		if err := dec.Decode(&p); err != nil {
			return goldenMapper{}, fmt.Errorf("mapper etcdraft: %v", err)
		}
		m := mapper.NewEtcdraft(p)
		return goldenMapper{Mapper: m, model: "raft.tla", consts: m.Consts(), etcd: m}, nil
	case "microbench":
		var p mapper.MicrobenchParams
		if err := dec.Decode(&p); err != nil {
			return goldenMapper{}, fmt.Errorf("mapper microbench: %v", err)
		}
		m := mapper.NewMicrobench(p)
		return goldenMapper{Mapper: m, model: "microbench.tla", consts: m.Consts()}, nil
	}
	return goldenMapper{}, fmt.Errorf("unknown mapper line %q (want \"mapper etcdraft|microbench {params}\")", line)
}

// mapGolden maps the file's trace and renders the result as the file's
// expected output.
func mapGolden(g *goldenFile) (string, []schedule.ModelAction, goldenMapper, error) {
	m, err := newGoldenMapper(g.mapper)
	if err != nil {
		return "", nil, m, err
	}
	acts, err := m.Map(nil, &schedule.Execution{Trace: g.trace})
	if err != nil {
		return "", nil, m, err
	}
	var b strings.Builder
	b.WriteString(actionsHeader)
	for _, a := range acts {
		fmt.Fprintf(&b, "step %3d  %s", a.Step, a.Name)
		for _, k := range slices.Sorted(maps.Keys(a.Params)) {
			b.WriteString(" " + k + "=" + tlaValue(a.Params[k]))
		}
		b.WriteByte('\n')
	}
	if m.etcd != nil {
		b.WriteString(unmappedHeader)
		u := m.etcd.Unmapped()
		for _, k := range m.etcd.UnmappedKeys() {
			fmt.Fprintf(&b, "%5d  %s\n", u[k], k)
		}
	}
	return b.String(), acts, m, nil
}

// tlaValue renders a parameter as TLA+ would write it; a Go type the model
// engine does not take shows with its type, so that a change of type shows
// in the golden files too.
func tlaValue(v any) string {
	switch v := v.(type) {
	case int64:
		return strconv.FormatInt(v, 10)
	case string:
		return strconv.Quote(v)
	case bool:
		if v {
			return "TRUE"
		}
		return "FALSE"
	case []any:
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = tlaValue(x)
		}
		return "<<" + strings.Join(parts, ", ") + ">>"
	case map[string]any:
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(v)) {
			parts = append(parts, k+" |-> "+tlaValue(v[k]))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprintf("%T(%v)", v, v)
}

func goldenPath(name string) string { return filepath.Join("testdata", name+".txt") }

// The stored traces are what the adapters produce today for the cases'
// inputs, and every testdata file has its case.
func TestGoldenTracesAreCurrent(t *testing.T) {
	names := map[string]bool{}
	for _, c := range goldenCases {
		names[goldenPath(c.name)] = true
		t.Run(c.name, func(t *testing.T) {
			want := c.golden(t)
			path := goldenPath(c.name)
			if *traces {
				out, _, _, err := mapGolden(want)
				require.NoError(t, err)
				require.NoError(t, os.WriteFile(path, []byte(want.head+out), 0o644))
			}
			g, err := readGolden(path)
			require.NoError(t, err)
			if g.head != want.head {
				t.Fatalf("%s: the adapter's trace of the case changed; rewrite it with go test ./mapper -traces and review the diff of the actions\n%s",
					path, lineDiff(g.head, want.head, 1))
			}
		})
	}
	files, err := filepath.Glob(filepath.Join("testdata", "*.txt"))
	require.NoError(t, err)
	for _, f := range files {
		require.True(t, names[f], "%s has no case in goldenCases", f)
	}
}

// Every stored trace maps to the expected model actions, and these replay
// on the model without divergence or violated invariant.
func TestGoldenActions(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.txt"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, path := range files {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txt"), func(t *testing.T) {
			g, err := readGolden(path)
			require.NoError(t, err)
			got, acts, m, err := mapGolden(g)
			require.NoError(t, err)
			if *update && got != g.want {
				require.NoError(t, os.WriteFile(path, []byte(g.head+got), 0o644))
				g.want = got
			}
			if got != g.want {
				t.Fatalf("%s: the mapper's output changed; if that is intended, rewrite it with go test ./mapper -update and review the diff\n%s",
					path, lineDiff(g.want, got, strings.Count(g.head, "\n")+1))
			}

			// Each action names the event it maps: one of its step, in
			// trace order; a message handled is its receipt.
			prev := 0
			for i, a := range acts {
				require.True(t, a.Event >= prev && a.Event < len(g.trace), "action %d (%s): event %d of %d, after %d", i, a.Name, a.Event, len(g.trace), prev)
				e := g.trace[a.Event]
				require.Equal(t, a.Step, e.Step, "action %d (%s) maps event %d", i, a.Name, a.Event)
				if strings.HasPrefix(a.Name, "Handle") {
					require.Equal(t, schedule.EvRecv, e.Kind, "action %d (%s) maps event %d", i, a.Name, a.Event)
				}
				prev = a.Event
			}

			res := replay(t, newSim(t, m.model, m.consts), acts)
			require.Nil(t, res.Divergence)
			require.Empty(t, res.Violations)
		})
	}
}

// lineDiff shows the first lines where got differs from want, numbered as
// in the file where want starts at line first.
func lineDiff(want, got string, first int) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(w), len(g)) && shown < 5; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d:\n  want %s\n  got  %s\n", first+i, wl, gl)
			shown++
		}
	}
	if len(w) != len(g) {
		fmt.Fprintf(&b, "(%d lines, want %d)\n", len(g), len(w))
	}
	return b.String()
}
