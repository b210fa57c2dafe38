package models

import (
	"fmt"
	"strings"
	"sync"

	"github.com/modelfuzz/modelfuzz/tlc"
)

// SizeOptions bound the search that measures abstractions.
type SizeOptions struct {
	MaxDepth  int   // states within this many steps of an initial state (as tlc.CheckOptions)
	MaxStates int64 // stop after this many distinct states (0: none)
	Workers   int
}

// ViewSize is how many abstract states one view makes of the states a
// search reached.
type ViewSize struct {
	View     string `json:"view"`
	Abstract int64  `json:"abstract_states"`
}

// SizeResult is what Size measured.
type SizeResult struct {
	States   int64      `json:"states"` // distinct states reached (no VIEW)
	Depth    int        `json:"depth"`
	Complete bool       `json:"complete"` // the search reached every state within the cfg's bounds
	Views    []ViewSize `json:"views"`
}

// Size measures coverage abstractions: it searches the model's states
// breadth-first without any VIEW, within the cfg's CONSTRAINTs and opt's
// bounds, and counts the distinct values each named view (a definition of
// the model) takes on them. An abstraction's size is what coverage by it
// can reach at most; a fine view (every state its own) rewards any new
// input, a coarse one only inputs that reach what it keeps.
func Size(s Spec, views []string, opt SizeOptions) (*SizeResult, error) {
	if len(views) == 0 {
		return nil, fmt.Errorf("no view to measure")
	}
	base := s
	base.View, base.NoView = "", true
	m, err := Load(base)
	if err != nil {
		return nil, err
	}
	type counter struct {
		name string
		m    *tlc.Model
		evs  sync.Pool
		mu   sync.Mutex
		seen map[uint64]struct{}
	}
	cs := make([]*counter, len(views))
	for i, v := range views {
		vs := s
		vs.View, vs.NoView = v, false
		vm, err := Load(vs)
		if err != nil {
			return nil, fmt.Errorf("view %s: %w", v, err)
		}
		c := &counter{name: v, m: vm, seen: map[uint64]struct{}{}}
		c.evs.New = func() any { return vm.NewEvaluator() }
		cs[i] = c
	}
	var mu sync.Mutex
	var viewErr error
	visit := func(st []tlc.Value, _ func() []tlc.State) {
		for _, c := range cs {
			ev := c.evs.Get().(*tlc.Evaluator)
			v, err := ev.ViewOf(st)
			c.evs.Put(ev)
			if err != nil {
				mu.Lock()
				if viewErr == nil {
					viewErr = fmt.Errorf("evaluating view %s: %w", c.name, err)
				}
				mu.Unlock()
				continue
			}
			fp := tlc.Fingerprint(v)
			c.mu.Lock()
			c.seen[fp] = struct{}{}
			c.mu.Unlock()
		}
	}
	res := tlc.Explore(m, tlc.CheckOptions{Workers: opt.Workers, MaxDepth: opt.MaxDepth, MaxStates: opt.MaxStates, Visit: visit})
	if viewErr != nil {
		return nil, viewErr
	}
	bounded := res.Result == "error" && strings.HasPrefix(res.Error, "stopped ")
	if res.Result != "success" && !bounded {
		// An invariant violation or an evaluation error: the states
		// counted are not the model's reachable states.
		return nil, fmt.Errorf("the search stopped: %s: %s", res.Result, res.Error)
	}
	out := &SizeResult{States: res.Distinct, Depth: res.Depth, Complete: !bounded}
	for _, c := range cs {
		out.Views = append(out.Views, ViewSize{View: c.name, Abstract: int64(len(c.seen))})
	}
	return out, nil
}
