package guidance

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// The online strategies of the randomized-testing papers in the seeds:
// PCT and its message-passing variant PCTCP, POS, d-POS and taPCT (Ozkan,
// Majumdar, Oraee, "Trace Aware Random Testing for Distributed Systems",
// OOPSLA 2019), and lossy-synchronous rounds (Dragoi et al., "Testing
// consensus implementations using communication closure", OOPSLA 2020).
// Each is a schedule.Chooser: it builds an execution online from the
// events the system has enabled (schedule.OnlineRun) and keeps nothing
// between executions but what the preliminary race analysis learned.

// OnlineParams are the online strategies' parameters (stored with a
// campaign; the flag tags name their command-line flags). Zero means the
// strategy's default (Defaults); the other strategies have them all zero.
type OnlineParams struct {
	Depth      int `json:"depth,omitempty" flag:"depth"`           // d: the bug depth the PCT family samples for
	Timeouts   int `json:"timeouts,omitempty" flag:"timeouts"`     // election timeouts the harness may inject in one execution
	RaceRuns   int `json:"race_runs,omitempty" flag:"race-runs"`   // random-walk executions of the preliminary analysis (n, n̂, racy events)
	Period     int `json:"period,omitempty" flag:"period"`         // rounds: k, isolated processes rejoin every k rounds
	Isolations int `json:"isolations,omitempty" flag:"isolations"` // rounds: d, isolations over the execution (-1: none, stored as such)
	Rounds     int `json:"rounds,omitempty" flag:"rounds"`         // rounds: r, the rounds isolations are spread over
	// Faults: the drops, duplicates, partitions, leadership transfers,
	// configuration changes and tick steps (each) the harness may inject
	// in one execution, within --actions (-1: none, stored as such).
	Faults int `json:"faults,omitempty" flag:"faults"`
}

// OnlineStrategies are the strategies that build executions online. The
// model-seeded ones (ModelSeededPrefix) are model guidance whose fresh
// inputs an online strategy builds (IsModelSeeded).
var OnlineStrategies = []string{"pct", "pctcp", "pos", "dpos", "tapct", "rounds", "model-pctcp", "model-dpos", "model-pctcp-tails", "model-dpos-tails", "model-pctcp-genome", "model-dpos-genome"}

// TailsSuffix ends the name of a model-seeded strategy whose online
// strategy builds the tails of the pool's mutants instead of the fresh
// inputs: model-X-tails is model guidance (random fresh inputs, the pool
// of the inputs that reached new abstract states) where a third of the
// mutants of a pool input replay its prefix up to the step at which it
// reached its rarest state and let the online strategy X choose every
// step after it. Model guidance gets the execution to a rare state; from
// there X makes the orderings it makes from the start in its own
// executions (a process starved until a change point, a message
// overtaken by later ones), which a random tail or a mutant seldom makes.
const TailsSuffix = "-tails"

// IsModelTails reports whether strategy is model guidance whose online
// strategy builds the tails of mutants (TailsSuffix).
func IsModelTails(strategy string) bool {
	return IsModelSeeded(strategy) && strings.HasSuffix(strategy, TailsSuffix)
}

// ModelSeededPrefix starts the name of a model-seeded strategy: model-X is
// model guidance (new abstract states keep an input, which is mutated
// further) whose fresh inputs, instead of random ones, are executions the
// online strategy X builds (model-X-tails: the tails of its mutants,
// TailsSuffix). The online strategies sample the orderings of
// messages with guarantees but learn nothing from one execution to the
// next; model guidance learns which inputs reach new states but its fresh
// inputs order messages blindly. Here each does what it is good at.
const ModelSeededPrefix = "model-"

// IsModelSeeded reports whether strategy is model guidance seeded by an
// online strategy.
func IsModelSeeded(strategy string) bool {
	return strings.HasPrefix(strategy, ModelSeededPrefix) && IsOnline(strategy)
}

// onlineBase is the online strategy that seeds a model-seeded one (the
// strategy itself for the others).
func onlineBase(strategy string) string {
	if IsModelTails(strategy) {
		strategy = strings.TrimSuffix(strategy, TailsSuffix)
	}
	if IsModelGenome(strategy) {
		strategy = strings.TrimSuffix(strategy, GenomeSuffix)
	}
	return strings.TrimPrefix(strategy, ModelSeededPrefix)
}

// IsOnline reports whether strategy builds its executions online.
func IsOnline(strategy string) bool {
	for _, s := range OnlineStrategies {
		if s == strategy {
			return true
		}
	}
	return false
}

// Defaults fills the parameters left zero with the strategy's defaults;
// isolations default to 2 on a system that can drop messages, else to
// none (-1). It returns an error naming a parameter that does not fit.
func (p *OnlineParams) Defaults(strategy string, spec *schedule.SystemSpec) error {
	if IsLearning(strategy) {
		// Of these, the learning strategies use the timeouts and faults only.
		if p.Depth != 0 || p.RaceRuns != 0 || p.Period != 0 || p.Isolations != 0 || p.Rounds != 0 {
			return fmt.Errorf("--depth, --race-runs, --period, --isolations and --rounds are not for %s (--timeouts and --faults are)", strategy)
		}
		if p.Timeouts == 0 {
			p.Timeouts = 6
		}
		if p.Timeouts < 0 {
			return fmt.Errorf("--timeouts must not be negative, got %d", p.Timeouts)
		}
		if p.Faults == 0 {
			// None by default: in episodes of a few steps the faults take
			// the steps that reach new states (a walk of 25 steps reaches a
			// third of raft.tla's states with 2 of each, docs/benchmarks.md).
			p.Faults = -1
		}
		return p.defaultFaults()
	}
	if !IsOnline(strategy) {
		if *p != (OnlineParams{}) {
			return fmt.Errorf("--depth, --timeouts, --race-runs, --period, --isolations, --rounds and --faults are for the online strategies (%s), not %s", strings.Join(OnlineStrategies, ", "), strategy)
		}
		return nil
	}
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	strategy = onlineBase(strategy)
	def(&p.Depth, 3)
	def(&p.Timeouts, 6)
	def(&p.RaceRuns, 20)
	def(&p.Period, 4)
	def(&p.Rounds, 16)
	if p.Isolations == 0 {
		p.Isolations = -1
		if strategy == "rounds" && spec.Supports(schedule.Drop) {
			p.Isolations = 2
		}
	}
	switch {
	case p.Depth < 1:
		return fmt.Errorf("--depth must be at least 1, got %d", p.Depth)
	case p.Timeouts < 0:
		return fmt.Errorf("--timeouts must not be negative, got %d", p.Timeouts)
	case p.RaceRuns < 1:
		return fmt.Errorf("--race-runs must be at least 1, got %d", p.RaceRuns)
	case p.Period < 1 || p.Rounds < 1:
		return fmt.Errorf("--period and --rounds must be at least 1, got %d and %d", p.Period, p.Rounds)
	case p.Isolations < -1:
		return fmt.Errorf("--isolations must not be negative, got %d", p.Isolations)
	case strategy == "rounds" && p.Isolations > 0 && !spec.Supports(schedule.Drop):
		return fmt.Errorf("--isolations %d: system %s cannot drop messages, so rounds cannot isolate a process (use --isolations -1)", p.Isolations, spec.Name)
	}
	return p.defaultFaults()
}

// defaultFaults: 2 of each fault an execution (the online strategies'
// default), -1 for none.
func (p *OnlineParams) defaultFaults() error {
	if p.Faults == 0 {
		p.Faults = 2
	}
	if p.Faults < -1 {
		return fmt.Errorf("--faults must not be negative (-1: none), got %d", p.Faults)
	}
	return nil
}

// HarnessFaults is the harness's quota of each fault (none for -1).
func (p *OnlineParams) HarnessFaults() int { return max(p.Faults, 0) }

// roundsActions are the actions rounds leaves to the harness: not the
// network faults, which would take messages out of their rounds (isolation
// is how rounds loses messages).
func roundsActions(h schedule.Harness, spec *schedule.SystemSpec) string {
	use := spec.Actions
	if h.Actions != "" {
		use, _ = schedule.ParseActions(h.Actions)
	}
	var keep []string
	for _, a := range use {
		switch a {
		case schedule.Drop, schedule.Duplicate, schedule.Partition, schedule.Heal:
			continue
		}
		keep = append(keep, string(a))
	}
	return strings.Join(keep, ",")
}

// Online is an online strategy ready to run: its chooser's parameters and
// what the preliminary analysis found. It is safe for concurrent use (each
// run makes its own chooser) and keeps the quantities of every execution.
type Online struct {
	Strategy string // as the campaign names it
	base     string // the online strategy that builds the inputs (onlineBase)
	Params   OnlineParams
	Harness  schedule.Harness
	Race     *RaceInfo // nil for pos and rounds

	procs int

	mu    sync.Mutex
	runs  int
	sum   map[string]int
	maxes map[string]int
}

// NewOnline prepares strategy on the system fac makes: for the PCT family
// it runs the preliminary race analysis (RaceRuns random walks, seeded by
// seed) that estimates n, n̂ and the racy events.
func NewOnline(strategy string, p OnlineParams, h schedule.Harness, fac schedule.Factory, seed uint64) (*Online, error) {
	o := &Online{Strategy: strategy, base: onlineBase(strategy), Params: p, Harness: h, sum: map[string]int{}, maxes: map[string]int{}, procs: fac.Spec().Processes}
	if p.Timeouts >= 0 {
		o.Harness.Timeouts = p.Timeouts
	}
	o.Harness.Faults = p.HarnessFaults()
	sys, err := fac.New()
	if err != nil {
		return nil, err
	}
	st, ok := sys.(schedule.Stepper)
	if !ok {
		return nil, fmt.Errorf("--strategy %s: system %s cannot be scheduled online (it has no Stepper interface; etcdraft, microbench and process have)", strategy, fac.Spec().Name)
	}
	switch o.base {
	case "pct", "pctcp", "dpos", "tapct":
		o.Race = AnalyzeRaces(st, o.Harness, p.RaceRuns, seed)
	case "rounds":
		o.Harness.CrashQuota = 0 // isolation is how rounds lose messages
		o.Harness.Actions = roundsActions(o.Harness, fac.Spec())
	case "pos":
	default:
		return nil, fmt.Errorf("unknown online strategy %q", strategy)
	}
	return o, nil
}

// Chooser returns a chooser for one execution.
func (o *Online) Chooser() schedule.Chooser {
	d := o.Params.Depth
	switch o.base {
	case "pct":
		return newPCT(d, o.Race.Events, nil, chainsByProcess)
	case "pctcp":
		return newPCT(d, o.Race.Events, nil, chainsByCause)
	case "tapct":
		return newPCT(d, o.Race.Racy, o.Race.Set, chainsByCause)
	case "dpos":
		return newPCT(d, o.Race.Racy, o.Race.Set, chainsPerEvent)
	case "pos":
		return &pos{}
	case "rounds":
		return newRounds(o.Params, o.procs)
	}
	panic("guidance: unknown online strategy " + o.Strategy)
}

// Run builds and executes one input online; it implements fuzzer.Online.
func (o *Online) Run(sys schedule.System, r *rand.Rand) (*schedule.Input, *schedule.Execution, error) {
	return o.run(sys, r)
}

// RunFrom runs the steps of prefix, then builds the rest of the input
// online from the state they reached (an online tail); it implements
// fuzzer.OnlineFrom.
func (o *Online) RunFrom(sys schedule.System, prefix []schedule.Step, r *rand.Rand) (*schedule.Input, *schedule.Execution, error) {
	return o.runFrom(sys, prefix, r)
}

// run builds and executes one input online with the random choices of r.
func (o *Online) run(sys schedule.System, r *rand.Rand) (*schedule.Input, *schedule.Execution, error) {
	return o.runFrom(sys, nil, r)
}

// runFrom is run after the steps of prefix.
func (o *Online) runFrom(sys schedule.System, prefix []schedule.Step, r *rand.Rand) (*schedule.Input, *schedule.Execution, error) {
	st, ok := sys.(schedule.Stepper)
	if !ok {
		return nil, nil, fmt.Errorf("system %s cannot be scheduled online", sys.Spec().Name)
	}
	in, ex, q := schedule.OnlineRunFrom(st, o.Chooser(), o.Harness, r, prefix)
	if err := schedule.StepperErr(st); err != nil {
		return nil, nil, err
	}
	o.count(q)
	return in, ex, nil
}

// count adds one execution's quantities to the report's.
func (o *Online) count(q map[string]int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.runs++
	for k, v := range q {
		o.sum[k] += v
		o.maxes[k] = max(o.maxes[k], v)
	}
}

// Quantity is one figure an online strategy reports.
type Quantity struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
}

// Report lists the quantities the strategy's guarantee is stated in:
// per execution, the mean and the largest of events, racy events, chains,
// concurrently enabled events, rounds and isolations, with the preliminary
// analysis's bounds and the probability bound they give.
func (o *Online) Report() []Quantity {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []Quantity
	add := func(name string, v float64) { out = append(out, Quantity{name, v}) }
	add("executions", float64(o.runs))
	for _, k := range schedule.SortedKeys(o.maxes) {
		if o.runs > 0 {
			add(k+" mean", math.Round(float64(o.sum[k])/float64(o.runs)*100)/100)
		}
		add(k+" max", float64(o.maxes[k]))
	}
	d := float64(o.Params.Depth)
	if o.Race != nil {
		add("analysis n (events)", float64(o.Race.Events))
		add("analysis n^ (racy events)", float64(o.Race.Racy))
		add("analysis racy signatures", float64(len(o.Race.Set)))
		add("depth d", d)
	}
	// The guarantee: the probability of sampling a given depth-d schedule
	// is at least 1/(C · N^(d-1)), C the chains (PCT, taPCT) or the most
	// concurrently enabled events (d-POS), N the events (PCT) or the racy
	// events (taPCT, d-POS); with the largest C seen.
	var c, n float64
	switch o.base {
	case "pct", "pctcp":
		c, n = float64(o.maxes["chains"]), float64(o.Race.Events)
	case "tapct":
		c, n = float64(o.maxes["chains"]), float64(o.Race.Racy)
	case "dpos":
		c, n = float64(o.maxes["max concurrent"]), float64(o.Race.Racy)
	case "rounds":
		if iso := float64(o.Params.Isolations); iso > 0 {
			// Algorithm 1 samples each k-periodic uniform execution with at
			// most d isolations in r rounds of N processes with probability
			// at least 1/(N r)^d.
			add("bound 1/(N·r)^d", 1/math.Pow(float64(o.procs*o.Params.Rounds), iso))
		}
	}
	if c > 0 {
		add("bound 1/(C·N^(d-1))", 1/(c*math.Pow(max(n, 1), d-1)))
	}
	return out
}

// RaceInfo is what the preliminary analysis found: the most events and
// racy events one execution created, and the signatures of the events
// found racy (co-enabled with a dependent event: one at the same process,
// or one that sent to a process it sent to too, which orders a FIFO inbox).
type RaceInfo struct {
	Events int
	Racy   int
	Set    map[string]bool
}

// AnalyzeRaces runs runs random walks on sys and collects the racy events
// (the taPCT paper's preliminary dynamic analysis, section 4.1.2).
func AnalyzeRaces(sys schedule.Stepper, h schedule.Harness, runs int, seed uint64) *RaceInfo {
	ri := &RaceInfo{Set: map[string]bool{}}
	var all []*walk
	for k := 0; k < runs; k++ {
		w := &walk{sig: map[int]string{}, sends: map[int]uint32{}}
		r := rand.New(rand.NewPCG(seed, uint64(k)^0x72616365))
		schedule.OnlineRun(sys, w, h, r)
		all = append(all, w)
		ri.Events = max(ri.Events, len(w.sig))
	}
	for _, w := range all {
		for _, snap := range w.snaps {
			for i, a := range snap {
				for _, b := range snap[i+1:] {
					if a.proc == b.proc || w.sends[a.id]&w.sends[b.id] != 0 {
						ri.Set[w.sig[a.id]] = true
						ri.Set[w.sig[b.id]] = true
					}
				}
			}
		}
	}
	for _, w := range all {
		n := 0
		for _, s := range w.sig {
			if ri.Set[s] {
				n++
			}
		}
		ri.Racy = max(ri.Racy, n)
	}
	return ri
}

// walk is the random walk of the analysis: it picks uniformly and records
// which events were enabled together and where each executed one sent.
type walk struct {
	sig   map[int]string // every event created, by id
	snaps [][]walkEv
	sends map[int]uint32 // executed event -> the processes it sent to
	r     *rand.Rand
}

type walkEv struct{ id, proc int }

func (w *walk) Start(r *rand.Rand) { w.r = r }

func (w *walk) Choose(evs []schedule.Enabled) (int, bool) {
	snap := make([]walkEv, len(evs))
	for i := range evs {
		e := &evs[i]
		if _, ok := w.sig[e.ID]; !ok {
			w.sig[e.ID] = e.Signature()
			if e.Cause != 0 {
				w.sends[e.Cause] |= 1 << e.Process
			}
		}
		snap[i] = walkEv{e.ID, e.Process}
	}
	w.snaps = append(w.snaps, snap)
	return w.r.IntN(len(evs)), false
}

func (w *walk) Executed(schedule.Enabled) {}

func (w *walk) Finish() map[string]int { return nil }
