package guidance

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/adapters/etcdraft"
	"github.com/modelfuzz/modelfuzz/adapters/microbench"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// toy is a small message-passing system for counting probabilities: every
// process has an inbox any message of which can be received (deliver-one),
// and a handler that says what a message sends. It records send and recv
// events, so the online driver sees the causes as in a real adapter.
type toy struct {
	spec    *schedule.SystemSpec
	initial []toyMsg                // the messages pending at the start
	handle  func(m toyMsg) []toyMsg // what receiving m sends
	inbox   [][]toyMsg              // per process
	got     [][]string              // per process: the names received, in order
	trace   schedule.Trace
	next    int
	step    int
}

type toyMsg struct {
	id       int
	from, to int
	name     string
}

func newToy(procs int, initial []toyMsg, handle func(toyMsg) []toyMsg) *toy {
	return &toy{spec: &schedule.SystemSpec{Name: "toy", Processes: procs,
		Actions: []schedule.Action{schedule.Deliver, schedule.DeliverOne}}, initial: initial, handle: handle}
}

func (t *toy) Spec() *schedule.SystemSpec { return t.spec }
func (t *toy) Config() json.RawMessage    { return json.RawMessage(`{}`) }
func (t *toy) New() (schedule.System, error) {
	c := *t
	return &c, nil
}

func (t *toy) Begin() {
	t.inbox = make([][]toyMsg, t.spec.Processes)
	t.got = make([][]string, t.spec.Processes)
	t.trace, t.next, t.step = nil, 0, 0
	for _, m := range t.initial {
		t.send(m)
	}
}

func (t *toy) send(m toyMsg) {
	t.next++
	m.id = t.next
	t.trace = append(t.trace, schedule.Event{Step: t.step, Kind: schedule.EvSend, Node: m.from, Peer: m.to, Msg: m.id, Type: m.name})
	t.inbox[m.to] = append(t.inbox[m.to], m)
}

func (t *toy) Step(st schedule.Step) bool {
	in := t.inbox[st.Process]
	k := st.K
	if st.Action == schedule.Deliver {
		k = 1
	}
	if len(in) > 0 {
		i := (k - 1) % len(in)
		m := in[i]
		t.inbox[st.Process] = append(in[:i:i], in[i+1:]...)
		t.trace = append(t.trace, schedule.Event{Step: t.step, Kind: schedule.EvRecv, Node: m.to, Peer: m.from, Msg: m.id, Type: m.name})
		t.got[m.to] = append(t.got[m.to], m.name)
		for _, s := range t.handle(m) {
			t.send(s)
		}
	}
	t.step++
	return true
}

func (t *toy) Pending(dst []schedule.Enabled) []schedule.Enabled {
	for p, in := range t.inbox {
		for k, m := range in {
			dst = append(dst, schedule.Enabled{ID: m.id, Kind: schedule.KindRecv, Process: p, From: m.from, Type: m.name,
				K: k + 1, Step: schedule.Step{Process: p, Action: schedule.DeliverOne, K: k + 1}})
		}
	}
	return dst
}

func (t *toy) Trace() schedule.Trace { return t.trace }
func (t *toy) End() *schedule.Execution {
	return &schedule.Execution{Trace: t.trace}
}
func (t *toy) Execute(in *schedule.Input) (*schedule.Execution, error) {
	t.Begin()
	for _, st := range in.Steps {
		t.Step(st)
	}
	return t.End(), nil
}

// chainExample is Example 2.2 of the taPCT paper: process 0 has msg 1
// pending, and each msg i sends msg i+1 to process 0, msg n sends B to
// process 1; process 1 has msg A pending. The bug: B before A at process 1.
func chainExample(n int) *toy {
	return newToy(2, []toyMsg{{from: -1, to: 0, name: "m1"}, {from: -1, to: 1, name: "A"}}, func(m toyMsg) []toyMsg {
		if i, err := strconv.Atoi(strings.TrimPrefix(m.name, "m")); err == nil {
			if i < n {
				return []toyMsg{{from: 0, to: 0, name: "m" + strconv.Itoa(i+1)}}
			}
			return []toyMsg{{from: 0, to: 1, name: "B"}}
		}
		return nil
	})
}

// raceExample is Example 2.3 (Fig. 3): process 0 receives A and C
// concurrently, A sends B to process 0, C sends D to process 2; process 1
// receives E, which sends F to itself. The bug: A, then C, then B at
// process 0 (depth 2: C must come after A, B after C).
func raceExample() *toy {
	return newToy(3, []toyMsg{{from: -1, to: 0, name: "A"}, {from: -1, to: 0, name: "C"}, {from: -1, to: 1, name: "E"}},
		func(m toyMsg) []toyMsg {
			switch m.name {
			case "A":
				return []toyMsg{{from: 0, to: 0, name: "B"}}
			case "C":
				return []toyMsg{{from: 0, to: 2, name: "D"}}
			case "E":
				return []toyMsg{{from: 1, to: 1, name: "F"}}
			}
			return nil
		})
}

// hitRate runs strategy runs times on sys and returns the share of the
// executions for which bug holds, and the strategy's report.
func hitRate(t *testing.T, strategy string, depth int, sys *toy, runs int, bug func(*toy) bool) (float64, *Online) {
	t.Helper()
	o, err := NewOnline(strategy, OnlineParams{Depth: depth, Timeouts: 0, RaceRuns: 50}, schedule.Harness{Shape: schedule.Shape{Steps: 100}}, sys, 7)
	require.NoError(t, err)
	run, err := sys.New()
	require.NoError(t, err)
	hits := 0
	for k := 0; k < runs; k++ {
		in, _, err := o.Run(run, rand.New(rand.NewPCG(uint64(k), 11)))
		require.NoError(t, err)
		if bug(run.(*toy)) {
			hits++
		}
		// The recorded input replays the same execution.
		if k < 20 {
			ex, err := sys.Execute(in)
			require.NoError(t, err)
			again, _ := run.(*toy).Execute(in)
			require.Equal(t, schedule.EncodeTrace(ex.Trace), schedule.EncodeTrace(again.Trace))
		}
	}
	return float64(hits) / float64(runs), o
}

// atLeast checks an observed rate against a lower bound p on the
// probability, allowing three standard deviations of the binomial
// estimate over runs executions (the seeds are fixed: the test is
// deterministic, the slack is what the bound means for a sample).
func atLeast(t *testing.T, what string, rate, p float64, runs int) {
	t.Helper()
	slack := 3 * math.Sqrt(p*(1-p)/float64(runs))
	require.GreaterOrEqual(t, rate, p-slack, "%s: hit rate %.3f below the bound %.3f (slack %.3f)", what, rate, p, slack)
}

func bBeforeA(s *toy) bool {
	for _, name := range s.got[1] {
		switch name {
		case "B":
			return true
		case "A":
			return false
		}
	}
	return false
}

func TestDepthOneBoundsOnTheChainExample(t *testing.T) {
	const n, runs = 8, 1000
	// Bounds of Fig. 1(c): random walk 1/2^(n+1); POS and d-POS 1/(n+2),
	// the events concurrently enabled with A; PCT(CP) and taPCT 1/2, the
	// chains (m1..mn,B and A).
	for _, c := range []struct {
		strategy string
		bound    float64
	}{
		{"pctcp", 1.0 / 2}, // 1/(chains · n^0) = 1/2
		{"tapct", 1.0 / 2}, // 1/(chains · n^^0) = 1/2
		{"dpos", 1.0 / (n + 2)},
		{"pos", 1.0 / (n + 2)},
	} {
		rate, o := hitRate(t, c.strategy, 1, chainExample(n), runs, bBeforeA)
		atLeast(t, c.strategy+" d=1", rate, c.bound, runs)
		if c.strategy == "pctcp" || c.strategy == "tapct" {
			require.Equal(t, 2, o.maxes["chains"], "%s: the chain example has two chains", c.strategy)
		}
		t.Logf("%s d=1: B before A in %.3f of %d runs (bound %.3f)", c.strategy, rate, runs, c.bound)
	}
	// pct gives priorities to processes, as PCT to threads, and a process
	// receives its messages in arrival order: B before A at one process is
	// outside its sample space at any depth (why PCTCP prioritizes chains).
	for _, d := range []int{1, 2, 3} {
		rate, _ := hitRate(t, "pct", d, chainExample(n), runs, bBeforeA)
		require.Zero(t, rate, "pct d=%d", d)
	}
}

func acb(s *toy) bool {
	g := s.got[0]
	return len(g) == 3 && g[0] == "A" && g[1] == "C" && g[2] == "B"
}

func TestDepthTwoBoundsOnTheRaceExample(t *testing.T) {
	const runs = 2000
	// Fig. 3(c): PCT 1/(chains · n) = 1/(3·6), d-POS 1/(maxConc · n^) =
	// 1/(5·3) (our maxConc: 3 at the start, A, C and E; the paper counts 5
	// over the run), taPCT 1/(chains · n^) = 1/(3·3); n^ = 3: A, B and C
	// race at process 0.
	for _, c := range []struct {
		strategy string
		bound    float64
	}{
		{"pctcp", 1.0 / 18},
		{"dpos", 1.0 / 15},
		{"tapct", 1.0 / 9},
	} {
		rate, o := hitRate(t, c.strategy, 2, raceExample(), runs, acb)
		if c.strategy != "pctcp" {
			require.Equal(t, 3, o.Race.Racy, "%s: A, B, C are the racy events", c.strategy)
		}
		require.Equal(t, 6, o.Race.Events)
		atLeast(t, c.strategy+" d=2", rate, c.bound, runs)
		t.Logf("%s d=2: A,C,B in %.3f of %d runs (bound %.3f)", c.strategy, rate, runs, c.bound)
	}
}

func TestPOSSamplesTraceClassesWithinItsBound(t *testing.T) {
	// The chain example has two trace classes (A before B, B before A);
	// POS's analysis gives each at least 1/(n+2), so neither may be sampled
	// more often than 1 - 1/(n+2).
	const n, runs = 6, 1000
	rate, _ := hitRate(t, "pos", 1, chainExample(n), runs, bBeforeA)
	p := 1.0 / (n + 2)
	atLeast(t, "pos: B before A", rate, p, runs)
	atLeast(t, "pos: A before B", 1-rate, p, runs)
}

// roundsWatch wraps the rounds chooser and records, for every message,
// the round during which it was first enabled and the round it ran in.
type roundsWatch struct {
	*rounds
	t       *testing.T
	sentIn  map[int]int
	outside int
	ran     int
}

func (w *roundsWatch) Choose(evs []schedule.Enabled) (int, bool) {
	before := w.rounds.round
	for _, e := range evs {
		if _, ok := w.sentIn[e.ID]; !ok {
			w.sentIn[e.ID] = before
		}
	}
	i, drop := w.rounds.Choose(evs)
	// The rounds before the current one left nothing behind.
	for _, e := range evs {
		if e.Kind == schedule.KindRecv && w.sentIn[e.ID] < w.rounds.round-1 {
			w.outside++
		}
	}
	if e := evs[i]; e.Kind == schedule.KindRecv && !drop {
		w.ran++
		if w.sentIn[e.ID] != w.rounds.round-1 {
			w.outside++
		}
	}
	return i, drop
}

func TestRoundsNeverDeliverOutsideTheRound(t *testing.T) {
	fac, err := etcdraft.NewFactory(etcdraft.DefaultConfig())
	require.NoError(t, err)
	sys, err := fac.New()
	require.NoError(t, err)
	p := OnlineParams{Depth: 1, Timeouts: 6, RaceRuns: 1, Period: 3, Isolations: 3, Rounds: 12}
	h := schedule.Harness{Shape: schedule.Shape{Steps: 120, Requests: 4}, Timeouts: 6}
	// The same with the harness's faults, as NewOnline gives them to rounds
	// (transfers, conf-changes and ticks at the ends of rounds).
	hf := h
	hf.Faults = 2
	hf.Actions = roundsActions(hf, fac.Spec())
	dropped, ran := 0, 0
	for k := 0; k < 40; k++ {
		w := &roundsWatch{rounds: newRounds(p, fac.Spec().Processes), t: t, sentIn: map[int]int{}}
		hk := h
		if k%2 == 1 {
			hk = hf
		}
		_, _, q := schedule.OnlineRun(sys.(schedule.Stepper), w, hk, rand.New(rand.NewPCG(uint64(k), 3)))
		require.Zero(t, w.outside, "run %d: a message was received outside the round after it was sent", k)
		require.LessOrEqual(t, q["isolations"], 3, "at most d isolations")
		ran += w.ran
		dropped += q["dropped"]
	}
	require.Positive(t, ran, "rounds receive messages")
	require.Positive(t, dropped, "isolations drop messages")
}

// The online strategies' inputs replay byte for byte on both adapters and
// minimize like any other input.
func TestOnlineInputsReplay(t *testing.T) {
	mb, err := microbench.NewFactory(microbench.Config{Workers: 3, Tasks: 4, Inject: microbench.InjectFlushBeforeLast})
	require.NoError(t, err)
	er, err := etcdraft.NewFactory(etcdraft.DefaultConfig())
	require.NoError(t, err)
	for _, fac := range []schedule.Factory{mb, er} {
		h := schedule.Harness{Shape: schedule.Shape{Steps: 80, MaxMessages: 1, Requests: 3, CrashQuota: 1}}
		for _, strategy := range OnlineStrategies {
			p := OnlineParams{}
			require.NoError(t, p.Defaults(strategy, fac.Spec()))
			p.RaceRuns = 3
			o, err := NewOnline(strategy, p, h, fac, 1)
			require.NoError(t, err)
			sys, err := fac.New()
			require.NoError(t, err)
			other, err := fac.New()
			require.NoError(t, err)
			for k := 0; k < 10; k++ {
				in, ex, err := o.Run(sys, rand.New(rand.NewPCG(uint64(k), 5)))
				require.NoError(t, err)
				want := schedule.EncodeTrace(ex.Trace)
				dec, err := schedule.DecodeInput(schedule.EncodeInput(in))
				require.NoError(t, err)
				again, err := other.Execute(dec)
				require.NoError(t, err)
				require.Equal(t, string(want), string(schedule.EncodeTrace(again.Trace)), "%s on %s, run %d", strategy, fac.Spec().Name, k)
				require.Equal(t, len(ex.Failures), len(again.Failures))
			}
		}
	}
}

func TestOnlineBugMinimizes(t *testing.T) {
	fac, err := microbench.NewFactory(microbench.Config{Workers: 2, Tasks: 3, Inject: microbench.InjectFlushBeforeLast})
	require.NoError(t, err)
	o, err := NewOnline("tapct", OnlineParams{Depth: 2, RaceRuns: 5, Period: 4, Rounds: 16, Isolations: -1}, schedule.Harness{Shape: schedule.Shape{Steps: 60, Requests: 2}}, fac, 1)
	require.NoError(t, err)
	sys, _ := fac.New()
	var bug *schedule.Input
	var sig string
	for k := 0; k < 500 && bug == nil; k++ {
		in, ex, err := o.Run(sys, rand.New(rand.NewPCG(uint64(k), 9)))
		require.NoError(t, err)
		if len(ex.Failures) > 0 {
			bug, sig = in, ex.Failures[0].Signature
		}
	}
	require.NotNil(t, bug, "taPCT finds the micro-benchmark's bug")
	keep := func(in *schedule.Input) (bool, error) {
		ex, err := sys.Execute(in)
		if err != nil {
			return false, err
		}
		return len(ex.Failures) > 0 && ex.Failures[0].Signature == sig, nil
	}
	min, _, err := schedule.Minimize(context.Background(), bug, keep, schedule.MinimizeOptions{MaxTries: 2000})
	require.NoError(t, err)
	ok, err := keep(min)
	require.NoError(t, err)
	require.True(t, ok)
	require.Less(t, min.Len(), bug.Len())
}

// Every online strategy and learner, on etcd raft with every action and
// the harness's faults: 200 inputs each replay byte for byte from their
// encoding on a second system, and between them they use every fault the
// harness offers (rounds leaves out drop, duplicate and partition, which
// it does by isolation or not at all).
func TestOnlineInputsWithEveryActionReplay(t *testing.T) {
	runs := 200
	if testing.Short() || raceOn {
		runs = 15 // under -race (make test); the 200 run without it
	}
	cfg := etcdraft.DefaultConfig()
	fac, err := etcdraft.NewFactory(cfg)
	require.NoError(t, err)
	spec := fac.Spec()
	h := schedule.Harness{Shape: schedule.Shape{Steps: 60, MaxMessages: 1, Requests: 2, CrashQuota: 1}}
	faults := []schedule.Action{schedule.Drop, schedule.Duplicate, schedule.Partition, schedule.Heal,
		schedule.TransferLeader, schedule.ConfChange, schedule.Tick, schedule.HoldWrites, schedule.Persist}
	strategies := append(append([]string{}, OnlineStrategies...), LearningStrategies...)
	for _, strategy := range strategies {
		var run func(sys schedule.System, r *rand.Rand) (*schedule.Input, *schedule.Execution, error)
		p := OnlineParams{}
		require.NoError(t, p.Defaults(strategy, spec))
		if IsLearning(strategy) {
			if strategy == "waypointrl" {
				continue // needs a model's waypoints; the same episodes as the others otherwise
			}
			p.Faults = 2 // the learners' default is none
			hh := h
			hh.Timeouts, hh.Faults = p.Timeouts, p.HarnessFaults()
			l, err := NewLearning(strategy, LearningParams{}, hh, nil)
			require.NoError(t, err)
			run = l.Run
		} else {
			p.RaceRuns = 3
			o, err := NewOnline(strategy, p, h, fac, 1)
			require.NoError(t, err)
			run = o.Run
		}
		sys, err := fac.New()
		require.NoError(t, err)
		other, err := fac.New()
		require.NoError(t, err)
		used := map[schedule.Action]int{}
		for k := 0; k < runs; k++ {
			in, ex, err := run(sys, rand.New(rand.NewPCG(uint64(k), 11)))
			require.NoError(t, err)
			want := string(schedule.EncodeTrace(ex.Trace))
			fails := len(ex.Failures)
			for _, st := range in.Steps {
				used[st.Action]++
			}
			dec, err := schedule.DecodeInput(schedule.EncodeInput(in))
			require.NoError(t, err)
			again, err := other.Execute(dec)
			require.NoError(t, err)
			require.Equal(t, want, string(schedule.EncodeTrace(again.Trace)), "%s, input %d", strategy, k)
			require.Equal(t, fails, len(again.Failures), "%s, input %d", strategy, k)
		}
		for _, a := range faults {
			if strategy == "rounds" {
				if a == schedule.Drop {
					require.NotZero(t, used[a], "rounds drops by isolation")
				} else if a == schedule.Duplicate || a == schedule.Partition || a == schedule.Heal {
					require.Zero(t, used[a], "rounds: %s", a)
				} else {
					require.NotZero(t, used[a], "rounds: %s", a)
				}
				continue
			}
			require.NotZero(t, used[a], "%s never used %s in %d inputs", strategy, a, runs)
		}
		t.Logf("%s: %v", strategy, used)
	}
}

// An online tail (RunFrom) runs its prefix as given, then builds the rest
// within the harness's quotas counting the prefix's: no more crashes than
// the quota, no request value twice, nothing at a process the prefix left
// crashed (at once or at a crash point, as the trace says) but its
// restart; and its input replays the same execution.
func TestOnlineTailsKeepThePrefixAndTheQuotas(t *testing.T) {
	runs := 100
	if testing.Short() || raceOn {
		runs = 15
	}
	cfg := etcdraft.DefaultConfig()
	fac, err := etcdraft.NewFactory(cfg)
	require.NoError(t, err)
	spec := fac.Spec()
	shape := schedule.Shape{Steps: 60, MaxMessages: 3, Requests: 3, CrashQuota: 2}
	gen, err := schedule.NewGenerator(spec, shape)
	require.NoError(t, err)
	for _, strategy := range []string{"model-dpos-tails", "model-pctcp-tails"} {
		p := OnlineParams{}
		require.NoError(t, p.Defaults(strategy, spec))
		p.RaceRuns = 3
		o, err := NewOnline(strategy, p, schedule.Harness{Shape: shape}, fac, 1)
		require.NoError(t, err)
		sys, err := fac.New()
		require.NoError(t, err)
		other, err := fac.New()
		require.NoError(t, err)
		leftCrashed := 0
		for k := 0; k < runs; k++ {
			r := rand.New(rand.NewPCG(uint64(k), 21))
			parent := gen.Random(r)
			prefix := parent.Steps[:1+r.IntN(len(parent.Steps))]
			in, ex, err := o.RunFrom(sys, prefix, r)
			require.NoError(t, err)
			n := min(len(prefix), len(in.Steps))
			require.Equal(t, prefix[:n], in.Steps[:n], "%s, tail %d: the prefix runs as given", strategy, k)
			// down[i]: the processes down when step i begins, by the trace.
			down := make([][]bool, len(in.Steps)+1)
			now := make([]bool, spec.Processes)
			ev := 0
			for i := range down {
				for ; ev < len(ex.Trace) && ex.Trace[ev].Step < i; ev++ {
					switch ex.Trace[ev].Kind {
					case schedule.EvCrash:
						now[ex.Trace[ev].Node] = true
					case schedule.EvRestart:
						now[ex.Trace[ev].Node] = false
					}
				}
				down[i] = slices.Clone(now)
			}
			crashes, values := 0, map[int]bool{}
			for i, st := range in.Steps {
				switch st.Action {
				case schedule.Crash:
					crashes++
				case schedule.Request:
					require.False(t, values[st.Value], "%s, tail %d: request value %d twice", strategy, k, st.Value)
					values[st.Value] = true
				}
				if i >= n && !st.Action.Global() && down[i][st.Process] {
					require.Equal(t, schedule.Restart, st.Action, "%s, tail %d, step %d: %s at a crashed process", strategy, k, i, st.Call())
				}
			}
			if n < len(down) && slices.Contains(down[n], true) {
				leftCrashed++
			}
			require.LessOrEqual(t, crashes, shape.CrashQuota, "%s, tail %d", strategy, k)
			dec, err := schedule.DecodeInput(schedule.EncodeInput(in))
			require.NoError(t, err)
			again, err := other.Execute(dec)
			require.NoError(t, err)
			require.Equal(t, string(schedule.EncodeTrace(ex.Trace)), string(schedule.EncodeTrace(again.Trace)), "%s, tail %d", strategy, k)
		}
		require.Positive(t, leftCrashed, "%s: some tails start with a process down", strategy)
		t.Logf("%s: %d of %d tails started with a process down", strategy, leftCrashed, runs)
	}
}
