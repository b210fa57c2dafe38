package models

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/modelfuzz/modelfuzz/tlc"
)

// PathAction is one step of a path through the model: the action operator
// Next called to take it and its arguments by formal name, shaped as the
// simulator takes them (tlc.JSONValue).
type PathAction struct {
	Name   string         `json:"name"`
	Params map[string]any `json:"params,omitempty"`
}

// Target is an abstract state (a value of the cfg's VIEW) that a search of
// the model reached and a campaign did not: its key, as the simulator
// computes it and the campaign stores it, and a path to the first
// concrete state the search met with that view.
type Target struct {
	Key  uint64       `json:"key"`
	Path []PathAction `json:"path"`
	// State is that concrete state, each variable as TLA+ text.
	State map[string]string `json:"state"`
	// Alternatives are paths to other concrete states with the same
	// view, in the order the search met them (TargetsWith's alts): a
	// system that cannot follow Path may follow one of them.
	Alternatives [][]PathAction `json:"alternatives,omitempty"`
}

// TargetsResult is what Targets found.
type TargetsResult struct {
	States   int64 `json:"states"`   // distinct states reached (no VIEW)
	Abstract int   `json:"abstract"` // distinct VIEW values among them
	Depth    int   `json:"depth"`
	Complete bool  `json:"complete"` // the search reached every state within the cfg's bounds
	// Targets are the abstract states not in covered, by path length
	// then key.
	Targets []Target `json:"targets"`
}

// Targets searches the model breadth-first without its VIEW (so that
// states the view merges are all explored), within the cfg's
// CONSTRAINTs and opt's bounds, keys every state by the cfg's VIEW as the
// simulator does, and returns the abstract states whose keys are not in
// covered, each with a path to it. A breadth-first search meets every
// abstract state first by a shortest path, so the paths are as short as
// the bounds allow (with several workers, within a level's order).
func Targets(s Spec, covered map[uint64]bool, opt SizeOptions) (*TargetsResult, error) {
	return TargetsWith(s, covered, opt, 0)
}

// TargetsWith is Targets with, for every target, paths to up to alts more
// concrete states of its view besides the first (breadth-first: the
// shortest after the first, as the search met them).
func TargetsWith(s Spec, covered map[uint64]bool, opt SizeOptions, alts int) (*TargetsResult, error) {
	if alts < 0 {
		return nil, fmt.Errorf("the number of alternative paths must not be negative")
	}
	vm, err := Load(s)
	if err != nil {
		return nil, err
	}
	if vm.View == nil {
		return nil, fmt.Errorf("%s: the cfg names no VIEW; targets are abstract states of a VIEW", s.Config)
	}
	base := s
	base.View, base.NoView = "", true
	m, err := Load(base)
	if err != nil {
		return nil, err
	}
	evs := sync.Pool{New: func() any { return vm.NewEvaluator() }}
	var mu sync.Mutex
	var firstErr error
	seen := map[uint64]int{} // concrete states met per view
	type found struct {
		key  uint64
		path []tlc.State
		alts [][]tlc.State
	}
	var fresh []found
	at := map[uint64]int{} // a target's index in fresh
	visit := func(st []tlc.Value, path func() []tlc.State) {
		ev := evs.Get().(*tlc.Evaluator)
		key, _, err := ev.ViewKey(st)
		evs.Put(ev)
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			if firstErr == nil {
				firstErr = fmt.Errorf("evaluating the VIEW: %w", err)
			}
			return
		}
		n := seen[key]
		if n > alts || covered[key] {
			seen[key] = max(n, 1)
			return
		}
		seen[key] = n + 1
		if n == 0 {
			at[key] = len(fresh)
			fresh = append(fresh, found{key: key, path: path()})
			return
		}
		f := &fresh[at[key]]
		f.alts = append(f.alts, path())
	}
	res := tlc.Explore(m, tlc.CheckOptions{Workers: opt.Workers, MaxDepth: opt.MaxDepth, MaxStates: opt.MaxStates, Visit: visit})
	if firstErr != nil {
		return nil, firstErr
	}
	bounded := res.Result == "error" && strings.HasPrefix(res.Error, "stopped ")
	if res.Result != "success" && !bounded {
		return nil, fmt.Errorf("the search stopped: %s: %s", res.Result, res.Error)
	}
	out := &TargetsResult{States: res.Distinct, Abstract: len(seen), Depth: res.Depth, Complete: !bounded}
	ev := m.NewEvaluator()
	ev.Quiet()
	for _, f := range fresh {
		t, err := target(ev, f.key, f.path)
		if err != nil {
			return nil, err
		}
		for _, p := range f.alts {
			a, err := target(ev, f.key, p)
			if err != nil {
				return nil, err
			}
			t.Alternatives = append(t.Alternatives, a.Path)
		}
		out.Targets = append(out.Targets, t)
	}
	slices.SortFunc(out.Targets, func(a, b Target) int {
		if len(a.Path) != len(b.Path) {
			return len(a.Path) - len(b.Path)
		}
		switch {
		case a.Key < b.Key:
			return -1
		case a.Key > b.Key:
			return 1
		}
		return 0
	})
	return out, nil
}

// target is the abstract state key, reached by the states of path.
func target(ev *tlc.Evaluator, key uint64, path []tlc.State) (Target, error) {
	t := Target{Key: key, State: map[string]string{}}
	if len(path) == 0 {
		return t, fmt.Errorf("the path to abstract state %016x could not be rebuilt", key)
	}
	for k := 1; k < len(path); k++ {
		a, err := stepAction(ev, path[k-1].Values, path[k].Values)
		if err != nil {
			return t, fmt.Errorf("path to abstract state %016x, step %d: %v", key, k, err)
		}
		t.Path = append(t.Path, a)
	}
	last := path[len(path)-1]
	for i, v := range last.Values {
		t.State[last.Vars[i]] = v.String()
	}
	return t, nil
}

// stepAction names the action that leads from s to t: the outermost
// action operator with parameters that Next called to produce t (Next's
// own disjunctions, which take none, are not actions a mapper emits).
func stepAction(ev *tlc.Evaluator, s, t []tlc.Value) (PathAction, error) {
	calls, ok, err := ev.StepCalls(s, t)
	if err != nil {
		return PathAction{}, err
	}
	if !ok {
		return PathAction{}, fmt.Errorf("no action of Next leads to the next state")
	}
	for _, c := range calls {
		if len(c.Params) == 0 {
			continue
		}
		a := PathAction{Name: c.Name, Params: map[string]any{}}
		for i, p := range c.Params {
			if i >= len(c.Args) || c.Args[i] == nil {
				return PathAction{}, fmt.Errorf("%s: parameter %s has no value", c.Name, p)
			}
			x, err := tlc.JSONValue(c.Args[i])
			if err != nil {
				return PathAction{}, fmt.Errorf("%s: parameter %s: %v", c.Name, p, err)
			}
			a.Params[p] = x
		}
		return a, nil
	}
	if len(calls) > 0 {
		return PathAction{Name: calls[len(calls)-1].Name}, nil
	}
	return PathAction{}, fmt.Errorf("the step is taken by no action operator")
}
