package guidance

import (
	"encoding/binary"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/cespare/xxhash/v2"

	"github.com/modelfuzz/modelfuzz/record"
	"github.com/modelfuzz/modelfuzz/schedule"
	"github.com/modelfuzz/modelfuzz/tlc/sim"
)

// The learning strategies of chapter 4 of the ModelFuzz thesis: Q-learning
// over the system's states, one episode per execution (a horizon of
// --steps), the Q-values updated backwards at the end of each episode.
//
//   - bonusmaxrl: the reward of a transition is 1/t, t the visits of the
//     state-action pair, and Q(s,a) <- (1-α)Q(s,a) + α·max(1/t, γ·max Q(s',·)),
//     Q starting at 1 (Algorithm 2);
//   - negrl (NegRLVisits): the reward is minus the visits of the state
//     reached, with the ordinary update (1-α)Q + α(r + γ·max Q(s',·)), Q
//     starting at 0;
//   - waypointrl: one bonusmaxrl table per waypoint reached, and a reward of
//     2 (plus 2γ^d when the episode reached the last waypoint, d steps
//     later) for a transition that passes the next waypoint (Algorithms 3
//     and 4);
//   - walk: the uniform random choice among the enabled events, with the
//     same harness: the baseline the thesis compares them with.
//
// Actions are the enabled events by signature (kind, process, sender,
// type). A state is the system's own, read from its trace (SystemState).

// LearningStrategies are the strategies NewLearning builds.
var LearningStrategies = []string{"negrl", "bonusmaxrl", "waypointrl", "walk"}

// IsLearning reports whether strategy is one of LearningStrategies.
func IsLearning(strategy string) bool { return slices.Contains(LearningStrategies, strategy) }

// LearningParams are the hyper-parameters; zero values take the thesis's
// (section 4.5.1: α 0.2, γ 0.95 for bonusmaxrl and waypointrl, α 0.3, γ 0.7
// for negrl; ε 0.05).
type LearningParams struct {
	Alpha, Gamma, Epsilon float64
}

// Learning is a learning strategy ready to run; it implements
// fuzzer.Online and fuzzer.Learner. Its tables are shared by every
// worker's executions (under a lock): with one worker a campaign is
// deterministic, with more an episode learns from those that finished
// before it.
type Learning struct {
	Strategy  string
	Params    LearningParams
	Harness   schedule.Harness
	Waypoints *Waypoints // waypointrl
	// Model, when set, abstracts the states by the model's VIEW (the
	// execution so far mapped and simulated after every step) instead of
	// the system's own state (SystemState).
	Model *ModelStates

	mu     sync.Mutex
	tables map[qkey]*qrow
	dirty  map[qkey]bool
	seen   map[uint64]bool // distinct abstract states reached
	// the episodes, and how many passed every waypoint
	episodes, reached int64
	steps             int64
}

type qkey struct {
	table int // the waypoint reached (waypointrl), else 0
	state uint64
}

// qrow is what is known of one state: its visits and, by action, its
// Q-value and visits.
type qrow struct {
	visits  uint64
	actions map[string]*qcell
}

type qcell struct {
	q      float64
	visits uint64
}

// NewLearning prepares a learning strategy. waypoints is needed by
// waypointrl and refused by the others.
func NewLearning(strategy string, p LearningParams, h schedule.Harness, waypoints *Waypoints) (*Learning, error) {
	if !IsLearning(strategy) {
		return nil, fmt.Errorf("unknown learning strategy %q", strategy)
	}
	if strategy == "waypointrl" && waypoints == nil {
		return nil, fmt.Errorf("--strategy waypointrl needs --waypoints FILE.tla[:DEF] (a module of TLA+ predicates over the model's variables) and --model")
	}
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	if strategy == "negrl" {
		def(&p.Alpha, 0.3)
		def(&p.Gamma, 0.7)
	} else {
		def(&p.Alpha, 0.2)
		def(&p.Gamma, 0.95)
	}
	def(&p.Epsilon, 0.05)
	for _, v := range []struct {
		name string
		x    float64
	}{{"alpha", p.Alpha}, {"gamma", p.Gamma}, {"epsilon", p.Epsilon}} {
		if v.x < 0 || v.x > 1 {
			return nil, fmt.Errorf("--rl-%s must be in [0,1], got %g", v.name, v.x)
		}
	}
	return &Learning{Strategy: strategy, Params: p, Harness: h, Waypoints: waypoints,
		tables: map[qkey]*qrow{}, dirty: map[qkey]bool{}, seen: map[uint64]bool{}}, nil
}

// ModelStates abstracts an execution's state by the model's VIEW: the
// fingerprint of the last abstract state its mapped actions reach.
type ModelStates struct {
	Mapper schedule.Mapper
	Sim    *sim.Simulator
}

// Key is the abstract state an execution so far has reached.
func (m *ModelStates) Key(in *schedule.Input, tr schedule.Trace) (uint64, error) {
	acts, err := m.Mapper.Map(in, &schedule.Execution{Trace: tr})
	if err != nil {
		return 0, err
	}
	req := SimRequest(acts, false)
	req.Resync = true
	res, err := m.Sim.Simulate(req)
	if err != nil {
		return 0, err
	}
	if len(res.Keys) == 0 {
		return 0, fmt.Errorf("the model has no initial state")
	}
	return res.Keys[len(res.Keys)-1], nil
}

// step is one transition of an episode.
type step struct {
	s, next   uint64
	a         string
	p, pNext  int      // the waypoints passed before and after (waypointrl)
	available []string // the actions enabled in next (empty for the last step)
}

// episode is one execution's chooser: it sees the system (for its state)
// and records the transitions.
type episode struct {
	l      *Learning
	sys    schedule.Stepper
	r      *rand.Rand
	state  *SystemState
	cur    uint64
	p      int
	in     *schedule.Input
	steps  []step
	err    error
	greedy int
}

func (e *episode) Start(r *rand.Rand) {
	e.r = r
	e.state = NewSystemState(e.sys.Spec().Processes)
	e.in = &schedule.Input{}
	e.cur = e.key(nil)
}

func (e *episode) Choose(evs []schedule.Enabled) (int, bool) {
	sigs := make([]string, len(evs))
	for i := range evs {
		sigs[i] = evs[i].Signature()
	}
	if n := len(e.steps); n > 0 && e.steps[n-1].available == nil {
		e.steps[n-1].available = sigs
	}
	if e.l.Strategy == "walk" || e.r.Float64() < e.l.Params.Epsilon {
		return e.r.IntN(len(evs)), false
	}
	e.greedy++
	e.l.mu.Lock()
	defer e.l.mu.Unlock()
	row := e.l.tables[qkey{e.p, e.cur}]
	best, bestQ, ties := 0, math.Inf(-1), 0
	for i, sig := range sigs {
		q := e.l.initial()
		if row != nil {
			if c := row.actions[sig]; c != nil {
				q = c.q
			}
		}
		switch {
		case q > bestQ:
			best, bestQ, ties = i, q, 1
		case q == bestQ:
			// ties are broken uniformly (reservoir sampling)
			ties++
			if e.r.IntN(ties) == 0 {
				best = i
			}
		}
	}
	return best, false
}

func (e *episode) Executed(ev schedule.Enabled) {
	e.in.Steps = append(e.in.Steps, ev.Step)
	tr := e.sys.Trace()
	next := e.key(tr)
	pNext := e.p
	if w := e.l.Waypoints; w != nil && e.l.Strategy == "waypointrl" && e.err == nil && pNext < len(w.Names) {
		acts, err := w.Mapper.Map(e.in, &schedule.Execution{Trace: tr})
		if err == nil {
			var pass Passage
			pass, err = w.Along(acts)
			pNext = max(pNext, pass.Reached)
		}
		if err != nil {
			e.err = fmt.Errorf("waypoints: %v", err)
		}
	}
	e.steps = append(e.steps, step{s: e.cur, next: next, a: ev.Signature(), p: e.p, pNext: pNext})
	e.cur, e.p = next, pNext
}

// key is the abstract state the execution reached.
func (e *episode) key(tr schedule.Trace) uint64 {
	if m := e.l.Model; m != nil {
		k, err := m.Key(e.in, tr)
		if err != nil && e.err == nil {
			e.err = fmt.Errorf("model states: %v", err)
		}
		return k
	}
	e.state.Observe(tr)
	return e.state.Key()
}

func (e *episode) Finish() map[string]int {
	return map[string]int{"steps": len(e.steps), "greedy choices": e.greedy}
}

// initial is the Q-value of a pair never updated.
func (l *Learning) initial() float64 {
	if l.Strategy == "negrl" {
		return 0
	}
	return 1
}

// Run builds and executes one episode online; it implements fuzzer.Online.
func (l *Learning) Run(sys schedule.System, r *rand.Rand) (*schedule.Input, *schedule.Execution, error) {
	st, ok := sys.(schedule.Stepper)
	if !ok {
		return nil, nil, fmt.Errorf("--strategy %s: system %s cannot be scheduled online (etcdraft, microbench and process can)", l.Strategy, sys.Spec().Name)
	}
	ep := &episode{l: l, sys: st}
	in, ex, _ := schedule.OnlineRun(st, ep, l.Harness, r)
	if err := schedule.StepperErr(st); err != nil {
		return nil, nil, err
	}
	if ep.err != nil {
		return in, ex, ep.err
	}
	// The other strategies are measured on the waypoints once, at the end
	// of the episode (waypointrl follows them at every step).
	reached := -1
	if l.Waypoints != nil && l.Strategy != "waypointrl" {
		p, err := l.Waypoints.Passage(in, ex)
		if err != nil {
			return in, ex, fmt.Errorf("waypoints: %v", err)
		}
		reached = p.Reached
	}
	l.process(ep.steps, reached)
	return in, ex, nil
}

// process updates the tables backwards along an episode.
// reached is how many waypoints the episode passed, when the steps do not
// say (-1: they do, or there are no waypoints).
func (l *Learning) process(steps []step, reached int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.episodes++
	l.steps += int64(len(steps))
	n := 0
	if l.Waypoints != nil {
		n = len(l.Waypoints.Names)
	}
	learnsWaypoints := l.Strategy == "waypointrl"
	reachedAt := -1
	for i, s := range steps {
		l.seen[s.s], l.seen[s.next] = true, true
		if learnsWaypoints && reachedAt < 0 && s.pNext == n {
			reachedAt = i
		}
	}
	if reachedAt >= 0 || n > 0 && reached == n {
		l.reached++
	}
	if l.Strategy == "walk" {
		return
	}
	a, g := l.Params.Alpha, l.Params.Gamma
	for i := len(steps) - 1; i >= 0; i-- {
		s := steps[i]
		k := qkey{s.p, s.s}
		row := l.row(k)
		c := row.actions[s.a]
		if c == nil {
			c = &qcell{q: l.initial()}
			row.actions[s.a] = c
		}
		c.visits++
		row.visits++
		l.dirty[k] = true
		last := i == len(steps)-1 || len(s.available) == 0
		switch l.Strategy {
		case "negrl":
			nextRow := l.row(qkey{0, s.next})
			nextRow.visits++ // the state reached, counted as visited
			l.dirty[qkey{0, s.next}] = true
			r := -float64(nextRow.visits)
			future := 0.0
			if !last {
				future = l.maxQ(qkey{0, s.next}, s.available)
			}
			c.q = (1-a)*c.q + a*(r+g*future)
		default: // bonusmaxrl, waypointrl
			expl := 1 / float64(c.visits)
			switch {
			case s.p == s.pNext || learnsWaypoints && s.p == n:
				if last {
					c.q = (1-a)*c.q + a*max(expl, 0)
				} else {
					c.q = (1-a)*c.q + a*max(expl, g*l.maxQ(qkey{s.pNext, s.next}, s.available))
				}
			default:
				prog, final := 0.0, 0.0
				if s.pNext > s.p {
					prog = 2
				}
				if reachedAt >= 0 {
					final = math.Pow(g, float64(max(reachedAt-i-1, 0))) * 2
				}
				c.q = (1-a)*c.q + a*max(expl, g*(prog+final))
			}
		}
	}
}

func (l *Learning) row(k qkey) *qrow {
	row := l.tables[k]
	if row == nil {
		row = &qrow{actions: map[string]*qcell{}}
		l.tables[k] = row
	}
	return row
}

func (l *Learning) maxQ(k qkey, available []string) float64 {
	row := l.tables[k]
	best := math.Inf(-1)
	for _, a := range available {
		q := l.initial()
		if row != nil {
			if c := row.actions[a]; c != nil {
				q = c.q
			}
		}
		best = max(best, q)
	}
	if math.IsInf(best, -1) {
		return 0
	}
	return best
}

// Report lists the learning's figures: episodes, steps, the distinct
// system states reached (the thesis's coverage), the Q-table's size, and
// for waypointrl the episodes that passed every waypoint.
func (l *Learning) Report() []Quantity {
	l.mu.Lock()
	defer l.mu.Unlock()
	what := "system states"
	if l.Model != nil {
		what = "model states (Q-table's)"
	}
	out := []Quantity{{"episodes", float64(l.episodes)}, {"steps", float64(l.steps)},
		{what, float64(len(l.seen))}, {"q-table states", float64(len(l.tables))}}
	if l.Waypoints != nil {
		out = append(out, Quantity{"episodes passing all waypoints", float64(l.reached)})
	}
	return out
}

// table names a Q-table in the corpus: the strategy and the waypoint.
func (l *Learning) table(p int) string { return l.Strategy + "." + strconv.Itoa(p) }

// Learned implements fuzzer.Learner: the rows changed since the last call.
func (l *Learning) Learned() []record.Learned {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.dirty) == 0 {
		return nil
	}
	keys := make([]qkey, 0, len(l.dirty))
	for k := range l.dirty {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b qkey) int {
		if a.table != b.table {
			return a.table - b.table
		}
		switch {
		case a.state < b.state:
			return -1
		case a.state > b.state:
			return 1
		}
		return 0
	})
	out := make([]record.Learned, len(keys))
	for i, k := range keys {
		out[i] = record.Learned{Table: l.table(k.table), State: k.state, Value: encodeRow(l.tables[k])}
	}
	clear(l.dirty)
	return out
}

// Restore implements fuzzer.Learner: the rows of this strategy's tables.
func (l *Learning) Restore(entries []record.Learned) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, e := range entries {
		name, p, ok := strings.Cut(e.Table, ".")
		if !ok || name != l.Strategy {
			continue
		}
		table, err := strconv.Atoi(p)
		if err != nil {
			return fmt.Errorf("q-table %q: bad name", e.Table)
		}
		row, err := decodeRow(e.Value)
		if err != nil {
			return fmt.Errorf("q-table %s, state %016x: %v", e.Table, e.State, err)
		}
		l.tables[qkey{table, e.State}] = row
		l.seen[e.State] = true
	}
	return nil
}

// encodeRow writes a row: the state's visits, the number of actions, then
// by action (sorted): its signature, its Q-value (float64 bits) and visits.
func encodeRow(r *qrow) []byte {
	b := binary.AppendUvarint(nil, r.visits)
	b = binary.AppendUvarint(b, uint64(len(r.actions)))
	for _, a := range slices.Sorted(maps.Keys(r.actions)) {
		c := r.actions[a]
		b = binary.AppendUvarint(b, uint64(len(a)))
		b = append(b, a...)
		b = binary.BigEndian.AppendUint64(b, math.Float64bits(c.q))
		b = binary.AppendUvarint(b, c.visits)
	}
	return b
}

func decodeRow(b []byte) (*qrow, error) {
	bad := fmt.Errorf("truncated row")
	uv := func() (uint64, bool) {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return 0, false
		}
		b = b[n:]
		return v, true
	}
	r := &qrow{actions: map[string]*qcell{}}
	var ok bool
	if r.visits, ok = uv(); !ok {
		return nil, bad
	}
	n, ok := uv()
	if !ok || n > uint64(len(b)) {
		return nil, bad
	}
	for range n {
		l, ok := uv()
		if !ok || l+8 > uint64(len(b)) {
			return nil, bad
		}
		a := string(b[:l])
		b = b[l:]
		q := math.Float64frombits(binary.BigEndian.Uint64(b))
		b = b[8:]
		v, ok := uv()
		if !ok {
			return nil, bad
		}
		r.actions[a] = &qcell{q: q, visits: v}
	}
	if len(b) != 0 {
		return nil, fmt.Errorf("%d bytes after the row", len(b))
	}
	return r, nil
}

// SystemState is the system's own abstract state, read from its trace (the
// thesis's "colors", section 4.5.1): for each process, whether it is down
// and the last event of each kind it reported about itself (etcd raft: its
// role and term, commit index, last applied entry, snapshot), messages and
// client operations left out; the processes' colors form a multiset.
type SystemState struct {
	seen  int
	procs []map[string]string // kind -> label
	down  []bool
}

// NewSystemState starts the state of n processes.
func NewSystemState(n int) *SystemState {
	s := &SystemState{procs: make([]map[string]string, n), down: make([]bool, n)}
	for i := range s.procs {
		s.procs[i] = map[string]string{}
	}
	return s
}

// stateless kinds say nothing of a process's own state.
var stateless = []string{schedule.EvSend, schedule.EvRecv, schedule.EvSkip, schedule.EvTimeout,
	schedule.EvRequest, schedule.EvResponse, "tick", "read", "dropped", "partition", "arm", "propose-conf"}

// Observe folds in the events of tr not seen yet (tr grows by appending).
func (s *SystemState) Observe(tr schedule.Trace) {
	for ; s.seen < len(tr); s.seen++ {
		e := &tr[s.seen]
		if e.Node < 0 || e.Node >= len(s.procs) || slices.Contains(stateless, e.Kind) {
			continue
		}
		switch e.Kind {
		case schedule.EvCrash:
			s.down[e.Node] = true
			clear(s.procs[e.Node])
			continue
		case schedule.EvRestart:
			s.down[e.Node] = false
		}
		s.procs[e.Node][e.Kind] = e.Label()
	}
}

// Key is the state's fingerprint.
func (s *SystemState) Key() uint64 {
	colors := make([]string, len(s.procs))
	for i, m := range s.procs {
		var b strings.Builder
		if s.down[i] {
			b.WriteString("down;")
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			b.WriteString(m[k])
			b.WriteByte(';')
		}
		colors[i] = b.String()
	}
	slices.Sort(colors)
	return xxhash.Sum64String(strings.Join(colors, "|"))
}
