package schedule

import (
	"fmt"
	"math/rand/v2"
)

// Shape describes the generated inputs.
// They are part of a campaign's stored settings (the flag tags name their
// command-line flags).
type Shape struct {
	Steps       int `json:"steps" flag:"steps"`               // length of a generated input, and the most a mutant may have
	MaxMessages int `json:"max_messages" flag:"max-messages"` // deliver(t) draws t in 1..MaxMessages
	CrashQuota  int `json:"crash_quota" flag:"crash-quota"`   // at most this many crash steps in an input
	Requests    int `json:"requests" flag:"requests"`         // client requests in a generated input
}

// Validate checks the parameters.
func (p Shape) Validate() error {
	switch {
	case p.Steps < 1:
		return fmt.Errorf("--steps must be at least 1, got %d", p.Steps)
	case p.MaxMessages < 1:
		return fmt.Errorf("--max-messages must be at least 1, got %d", p.MaxMessages)
	case p.CrashQuota < 0:
		return fmt.Errorf("--crash-quota must not be negative, got %d", p.CrashQuota)
	case p.Requests < 0:
		return fmt.Errorf("--requests must not be negative, got %d", p.Requests)
	case p.Requests > p.Steps:
		return fmt.Errorf("--requests (%d) cannot exceed --steps (%d)", p.Requests, p.Steps)
	}
	return nil
}

// Generator makes and mutates inputs for one system.
type Generator struct {
	spec    *SystemSpec
	p       Shape
	targets []int // processes that accept requests
	// actions the system supports besides deliver and request, for random steps
	crash, restart, timeout bool
}

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
	g := &Generator{spec: spec, p: p,
		crash:   spec.Supports(Crash) && p.CrashQuota > 0,
		restart: spec.Supports(Restart),
		timeout: spec.Supports(Timeout),
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
			in.Steps = append(in.Steps, g.request(r, value))
			continue
		}
		s := g.randomStep(r, crashed, &crashes)
		in.Steps = append(in.Steps, s)
	}
	return in
}

func (g *Generator) request(r *rand.Rand, value int) Step {
	return Step{Process: g.targets[r.IntN(len(g.targets))], Action: Request, Value: value}
}

// randomStep draws a non-request step for a random process, tracking which
// processes are crashed so that restarts are meaningful.
func (g *Generator) randomStep(r *rand.Rand, crashed []bool, crashes *int) Step {
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
		return Step{Process: p, Action: Crash}
	}
	return Step{Process: p, Action: Deliver, Messages: 1 + r.IntN(g.p.MaxMessages)}
}
