package schedule

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
)

// Shape describes the generated inputs.
// They are part of a campaign's stored settings (the flag tags name their
// command-line flags).
type Shape struct {
	Steps       int `json:"steps" flag:"steps"`               // length of a generated input, and the most a mutant may have
	MaxMessages int `json:"max_messages" flag:"max-messages"` // deliver(t) draws t in 1..MaxMessages
	CrashQuota  int `json:"crash_quota" flag:"crash-quota"`   // at most this many crash steps in an input
	Requests    int `json:"requests" flag:"requests"`         // client requests in a generated input
	// Actions lists the actions generated inputs use (comma-separated);
	// empty means every action the system supports.
	Actions string `json:"actions,omitempty" flag:"actions"`
}

// Validate checks the parameters.
func (p Shape) Validate() error {
	switch {
	case p.Steps < 1:
		return fmt.Errorf("--steps must be at least 1, got %d", p.Steps)
	case p.Steps > MaxSteps:
		return fmt.Errorf("--steps %d: at most %d steps an input (schedule.MaxSteps)", p.Steps, MaxSteps)
	case p.MaxMessages < 1:
		return fmt.Errorf("--max-messages must be at least 1, got %d", p.MaxMessages)
	case p.MaxMessages > MaxMessages:
		return fmt.Errorf("--max-messages %d: at most %d messages a step (schedule.MaxMessages)", p.MaxMessages, MaxMessages)
	case p.CrashQuota < 0:
		return fmt.Errorf("--crash-quota must not be negative, got %d", p.CrashQuota)
	case p.Requests < 0:
		return fmt.Errorf("--requests must not be negative, got %d", p.Requests)
	case p.Requests > p.Steps:
		return fmt.Errorf("--requests (%d) cannot exceed --steps (%d)", p.Requests, p.Steps)
	}
	if _, err := ParseActions(p.Actions); err != nil {
		return fmt.Errorf("--actions: %v", err)
	}
	return nil
}

// Check checks that in has the shape of the inputs a campaign with p makes
// (an imported input): at most Steps steps, of its Actions, delivering at
// most MaxMessages messages a step, with at most CrashQuota crashes.
func (p Shape) Check(in *Input) error {
	if len(in.Steps) > p.Steps {
		return fmt.Errorf("%d steps, more than the campaign's --steps %d", len(in.Steps), p.Steps)
	}
	acts, err := ParseActions(p.Actions)
	if err != nil {
		return err
	}
	crashes := 0
	for i, st := range in.Steps {
		if len(acts) > 0 && !slices.Contains(acts, st.Action) {
			return stepError(i, st, fmt.Errorf("not one of the campaign's --actions %s", p.Actions))
		}
		if st.Action == Deliver && st.Messages > p.MaxMessages {
			return stepError(i, st, fmt.Errorf("\"messages\" %d, more than the campaign's --max-messages %d", st.Messages, p.MaxMessages))
		}
		if st.Action == Crash {
			crashes++
		}
	}
	if crashes > p.CrashQuota {
		return fmt.Errorf("%d crash steps, more than the campaign's --crash-quota %d", crashes, p.CrashQuota)
	}
	return nil
}

// Generator makes inputs for one system: random ones, and the random
// steps that package mutate draws for its mutants.
type Generator struct {
	spec    *SystemSpec
	p       Shape
	targets []int // processes that accept requests
	// actions the system supports besides deliver and request, for random steps
	crash, restart, timeout bool
	ext                     []Action // the newer actions (after BaseActions) in use
}

// extWeight is how often each newer action is drawn, relative to the
// others, when a random step is not a timeout, crash or restart.
var extWeight = map[Action]int{
	Drop: 5, Duplicate: 4, DeliverOne: 10, Partition: 2, Heal: 3,
	ConfChange: 4, TransferLeader: 3, Read: 6, Tick: 8, HoldWrites: 3, Persist: 2,
}

// extShare is the percentage of would-be deliver steps that become one of
// the newer actions when any is in use.
const extShare = 25

// maxTicks bounds a tick step's n: above the election timeout of the
// adapters' defaults (10), so that one step can expire a lease.
const maxTicks = 40

// maxHold bounds a hold-writes step's n, the steps its writes wait at
// most: about five steps of each process of a cluster of four.
const maxHold = 20

// NewGenerator returns a generator for the system described by spec.
func NewGenerator(spec *SystemSpec, p Shape) (*Generator, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if spec.Processes < 1 {
		return nil, fmt.Errorf("system %s has no processes", spec.Name)
	}
	if !spec.Supports(Deliver) {
		return nil, fmt.Errorf("system %s does not support deliver", spec.Name)
	}
	use := spec.Actions
	if p.Actions != "" {
		use, _ = ParseActions(p.Actions)
		for _, a := range use {
			if !spec.Supports(a) {
				return nil, fmt.Errorf("--actions: system %s does not support %s (it has: %s)", spec.Name, a, actionList(spec.Actions))
			}
		}
		if !slices.Contains(use, Deliver) {
			return nil, fmt.Errorf("--actions must include deliver")
		}
	}
	on := func(a Action) bool { return slices.Contains(use, a) }
	g := &Generator{spec: spec, p: p,
		crash:   on(Crash) && p.CrashQuota > 0,
		restart: on(Restart),
		timeout: on(Timeout),
	}
	for _, a := range AllActions[len(BaseActions):] {
		if on(a) {
			g.ext = append(g.ext, a)
		}
	}
	if p.Requests > 0 && !on(Request) && spec.Supports(Request) {
		return nil, fmt.Errorf("--actions leaves out request; use --requests 0")
	}
	if p.Requests > 0 && !spec.Supports(Request) {
		return nil, fmt.Errorf("system %s does not take client requests; use --requests 0", spec.Name)
	}
	g.targets = spec.RequestTargets
	if len(g.targets) == 0 {
		for i := 0; i < spec.Processes; i++ {
			g.targets = append(g.targets, i)
		}
	}
	return g, nil
}

// Shape returns the shape of the inputs the generator makes.
func (g *Generator) Shape() Shape { return g.p }

// Spec returns the system the generator makes inputs for.
func (g *Generator) Spec() *SystemSpec { return g.spec }

// Draws reports whether random steps may be a: crash (when the crash
// quota allows one), restart, timeout, or one of the newer actions in use.
func (g *Generator) Draws(a Action) bool {
	switch a {
	case Crash:
		return g.crash
	case Restart:
		return g.restart
	case Timeout:
		return g.timeout
	}
	return slices.Contains(g.ext, a)
}

// DrawsNewer reports whether random steps may be of the newer actions
// (those after BaseActions).
func (g *Generator) DrawsNewer() bool { return len(g.ext) > 0 }

// Random generates an input of Shape.Steps steps with exactly
// Shape.Requests requests at random positions. Crashes stay within the
// quota and restarts follow crashes of the same process.
func (g *Generator) Random(r *rand.Rand) *Input {
	n := g.p.Steps
	in := &Input{Steps: make([]Step, 0, n)}
	isReq := make([]bool, n)
	for _, i := range r.Perm(n)[:g.p.Requests] {
		isReq[i] = true
	}
	crashed := make([]bool, g.spec.Processes)
	crashes := 0
	value := 0
	for i := 0; i < n; i++ {
		if isReq[i] {
			value++
			in.Steps = append(in.Steps, g.RequestStep(r, value))
			continue
		}
		s := g.RandomStep(r, crashed, &crashes)
		in.Steps = append(in.Steps, s)
	}
	return in
}

// RequestStep draws a client request of value for a process that takes
// requests.
func (g *Generator) RequestStep(r *rand.Rand, value int) Step {
	return Step{Process: g.targets[r.IntN(len(g.targets))], Action: Request, Value: value}
}

// RandomStep draws a non-request step for a random process, tracking which
// processes are crashed so that restarts are meaningful (crashed nil: not
// tracked) and how many crashes the input has.
func (g *Generator) RandomStep(r *rand.Rand, crashed []bool, crashes *int) Step {
	p := r.IntN(g.spec.Processes)
	if crashed != nil && crashed[p] && g.restart && r.IntN(2) == 0 {
		crashed[p] = false
		return Step{Process: p, Action: Restart}
	}
	x := r.IntN(100)
	switch {
	case g.timeout && x < 10:
		return Step{Process: p, Action: Timeout}
	case g.crash && x >= 10 && x < 18 && *crashes < g.p.CrashQuota && (crashed == nil || !crashed[p]):
		*crashes++
		if crashed != nil {
			crashed[p] = true
		}
		st := Step{Process: p, Action: Crash}
		if len(g.spec.CrashPoints) > 0 && r.IntN(2) == 0 {
			st.Point = g.spec.CrashPoints[r.IntN(len(g.spec.CrashPoints))]
		}
		return st
	}
	if len(g.ext) > 0 && r.IntN(100) < extShare {
		return g.NewerStep(r, p)
	}
	return Step{Process: p, Action: Deliver, Messages: 1 + r.IntN(g.p.MaxMessages)}
}

// NewerStep draws one of the newer actions in use, with its parameters,
// for process p.
func (g *Generator) NewerStep(r *rand.Rand, p int) Step {
	total := 0
	for _, a := range g.ext {
		total += extWeight[a]
	}
	x := r.IntN(total)
	a := g.ext[len(g.ext)-1]
	for _, b := range g.ext {
		if x < extWeight[b] {
			a = b
			break
		}
		x -= extWeight[b]
	}
	st := Step{Process: p, Action: a}
	n := g.spec.Processes
	switch a {
	case Drop, Duplicate, DeliverOne:
		st.K = 1 + r.IntN(g.p.MaxMessages)
	case Tick:
		st.N = 1 + r.IntN(maxTicks)
	case HoldWrites:
		st.N = 1 + r.IntN(maxHold)
	case TransferLeader:
		st.To = r.IntN(n)
	case Partition:
		st.Process = 0
		if n > 1 {
			// A non-empty proper subset: a random one of 1..2^n-2.
			st.Set = ProcSet(1 + r.IntN(1<<n-2))
		} else {
			st.Action = Heal
		}
	case Heal:
		st.Process = 0
	case ConfChange:
		st.Conf = randomConf(r, n)
	}
	return st
}

// randomConf draws a conf-change: mostly one change, sometimes two (a
// joint configuration), sometimes leaving a joint configuration.
func randomConf(r *rand.Rand, n int) string {
	if r.IntN(5) == 0 {
		return "leave"
	}
	ops := []string{"add-voter", "add-voter", "add-learner", "remove"}
	one := func(p int) string { return ops[r.IntN(len(ops))] + " " + strconv.Itoa(p) }
	p := r.IntN(n)
	if n < 2 || r.IntN(4) != 0 {
		return one(p)
	}
	q := (p + 1 + r.IntN(n-1)) % n
	if r.IntN(2) == 0 {
		return "auto " + one(p) + ", " + one(q)
	}
	return one(p) + ", " + one(q)
}
