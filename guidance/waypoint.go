package guidance

import (
	"fmt"

	"github.com/modelfuzz/modelfuzz/schedule"
	"github.com/modelfuzz/modelfuzz/tlc/sim"
	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// Waypoints is a sequence of predicates over a model's variables that an
// execution should pass in order (WaypointRL, chapter 4 of the ModelFuzz
// thesis): "a server crashed", then "it is back", then "a leader whose log
// is shorter than a follower's". The predicates are TLA+, written in a
// module that extends the model; Sim simulates that module with the
// sequence as its VIEW, a tuple of booleans, so that our engine evaluates
// all of them on every state the mapped execution reaches.
type Waypoints struct {
	Names  []string // one per waypoint, in order
	Mapper schedule.Mapper
	Sim    *sim.Simulator
}

// Passage is how far one execution went along the waypoints.
type Passage struct {
	// Reached is how many waypoints were passed in order: waypoint k
	// counts once waypoints 0..k-1 were, in the same or an earlier state.
	Reached int
	// Steps is the input step whose actions reached each passed waypoint
	// (-1: the initial state already satisfied it).
	Steps []int
}

// Done reports whether every waypoint was passed.
func (w *Waypoints) Done(p Passage) bool { return p.Reached == len(w.Names) }

// Passage maps an execution onto the model and follows it along the
// waypoints.
func (w *Waypoints) Passage(in *schedule.Input, ex *schedule.Execution) (Passage, error) {
	acts, err := w.Mapper.Map(in, ex)
	if err != nil {
		return Passage{}, err
	}
	return w.Along(acts)
}

// Along follows mapped actions along the waypoints. Past a divergence the
// states are the model's, not the execution's (sim.Request.Resync), so a
// waypoint is counted only in the states before it.
func (w *Waypoints) Along(acts []schedule.ModelAction) (Passage, error) {
	views, div, err := w.Sim.Views(SimRequest(acts, false))
	if err != nil {
		return Passage{}, fmt.Errorf("waypoints: %w", err)
	}
	var p Passage
	for _, vs := range views {
		if div != nil && vs.Index > div.Index {
			break
		}
		holds, err := w.values(vs.View)
		if err != nil {
			return Passage{}, err
		}
		for p.Reached < len(holds) && holds[p.Reached] {
			step := -1
			if vs.Index > 0 && vs.Index <= len(acts) {
				step = acts[vs.Index-1].Step
			}
			p.Steps = append(p.Steps, step)
			p.Reached++
		}
		if p.Reached == len(w.Names) {
			break
		}
	}
	return p, nil
}

// values reads the VIEW's tuple of booleans.
func (w *Waypoints) values(v value.Value) ([]bool, error) {
	elems, err := value.SeqElems("waypoints", v)
	if err != nil {
		return nil, fmt.Errorf("waypoints: the sequence is not a tuple: %v", err)
	}
	if len(elems) != len(w.Names) {
		return nil, fmt.Errorf("waypoints: the sequence has %d elements, want %d", len(elems), len(w.Names))
	}
	out := make([]bool, len(elems))
	for i, e := range elems {
		b, ok := e.(value.Bool)
		if !ok {
			return nil, fmt.Errorf("waypoints: %s is not a predicate (its value is %v)", w.Names[i], e)
		}
		out[i] = bool(b)
	}
	return out, nil
}

// Last evaluates the predicates in the last state the mapped actions reach
// (the last before a divergence): what holds where the execution is now.
func (w *Waypoints) Last(acts []schedule.ModelAction) ([]bool, error) {
	views, div, err := w.Sim.Views(SimRequest(acts, false))
	if err != nil {
		return nil, fmt.Errorf("model predicates: %w", err)
	}
	last := -1
	for k, vs := range views {
		if div != nil && vs.Index > div.Index {
			break
		}
		last = k
	}
	if last < 0 {
		return nil, fmt.Errorf("model predicates: the model has no initial state the execution starts from")
	}
	return w.values(views[last].View)
}
