package tlcjava

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/modelfuzz/modelfuzz/tlc/sidecar"
	"github.com/modelfuzz/modelfuzz/tlc/sim"
)

// Compare says where two answers to one request disagree: the first
// visited abstract state that differs (its position in the answer and the
// action index it was reached at), the divergence, the invariants
// violated, the choices; "" when they agree. a and b name the engines.
func Compare(a, b string, x, y *sim.Result) string {
	n := min(len(x.States), len(y.States))
	for i := 0; i < n; i++ {
		sx, sy := x.States[i], y.States[i]
		if sx.Key != sy.Key || sx.Index != sy.Index {
			return fmt.Sprintf("state %d: %s has key %s after %d actions, %s key %s after %d", i, a, sx.Key, sx.Index, b, sy.Key, sy.Index)
		}
	}
	if len(x.States) != len(y.States) {
		return fmt.Sprintf("%s visits %d abstract states, %s %d (the first %d agree)", a, len(x.States), b, len(y.States), n)
	}
	if dx, dy := divergenceText(x.Divergence), divergenceText(y.Divergence); dx != dy {
		return fmt.Sprintf("divergence: %s %s, %s %s", a, dx, b, dy)
	}
	if vx, vy := fmt.Sprint(x.Violations), fmt.Sprint(y.Violations); vx != vy {
		return fmt.Sprintf("violations: %s %s, %s %s", a, vx, b, vy)
	}
	if cx, cy := fmt.Sprint(x.Choices), fmt.Sprint(y.Choices); cx != cy {
		return fmt.Sprintf("actions with several successors: %s %s, %s %s", a, cx, b, cy)
	}
	if x.Skipped != y.Skipped {
		return fmt.Sprintf("skipped actions: %s %d, %s %d", a, x.Skipped, b, y.Skipped)
	}
	return ""
}

// divergenceText is a divergence as the engines must agree on it: its
// index, action and reason; an evaluation error by its kind only, since
// each engine words its own.
func divergenceText(d *sim.Divergence) string {
	if d == nil {
		return "none"
	}
	reason := d.Reason
	if strings.HasPrefix(reason, "evaluation error") {
		reason = "evaluation error"
	}
	return fmt.Sprintf("at action %d (%s): %s", d.Index, d.Action, reason)
}

// Disagreement is one request the two engines answer differently.
type Disagreement struct {
	Request *sim.Request
	Where   string
	// File holds the request and both answers, when Diff.SaveDir is set.
	File string
}

func (d *Disagreement) Error() string {
	msg := "the engines disagree: " + d.Where
	if d.File != "" {
		msg += " (request and answers in " + d.File + ")"
	}
	return msg
}

// Diff is a Simulator that runs every request on two engines, answers
// with the first's result, and counts the requests compared. A
// disagreement is an error (*Disagreement) of the request that met it.
type Diff struct {
	A, B         sidecar.Simulator
	NameA, NameB string
	// SaveDir, when set, receives each disagreement as a JSON file.
	SaveDir string
	// Mutants, when positive, also compares this many mutants of every
	// request: its actions with one removed, duplicated, swapped with the
	// next, or with an integer parameter moved by one, which leave the
	// model where executions of the system rarely do (divergences,
	// disabled actions, unknown values). Their results are compared only.
	Mutants int

	mu       sync.Mutex
	compared int64
	mutants  int64
	diverged int64
}

// Counts says how many requests and mutants both engines answered alike,
// and how many of those diverged from the model.
func (d *Diff) Counts() (requests, mutants, diverged int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.compared, d.mutants, d.diverged
}

// Simulate runs req on both engines.
func (d *Diff) Simulate(ctx context.Context, req *sim.Request) (*sim.Result, error) {
	out, err := d.SimulateBatch(ctx, []*sim.Request{req})
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// SimulateBatch runs the batch on both engines at once.
func (d *Diff) SimulateBatch(ctx context.Context, reqs []*sim.Request) ([]*sim.Result, error) {
	all := reqs
	if d.Mutants > 0 {
		all = append([]*sim.Request{}, reqs...)
		for i, r := range reqs {
			for k := 0; k < d.Mutants; k++ {
				all = append(all, mutant(r, uint64(i)*7919+uint64(k)))
			}
		}
	}
	res, err := d.compare(ctx, all)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	d.compared += int64(len(reqs))
	d.mutants += int64(len(all) - len(reqs))
	for _, r := range res {
		if r.Divergence != nil {
			d.diverged++
		}
	}
	d.mu.Unlock()
	return res[:len(reqs)], nil
}

// compare runs the requests on both engines at once and compares each
// answer.
func (d *Diff) compare(ctx context.Context, reqs []*sim.Request) ([]*sim.Result, error) {
	var rb []*sim.Result
	var eb error
	done := make(chan struct{})
	go func() {
		defer close(done)
		rb, eb = d.B.SimulateBatch(ctx, reqs)
	}()
	ra, ea := d.A.SimulateBatch(ctx, reqs)
	<-done
	if ea != nil {
		return nil, fmt.Errorf("%s: %w", d.NameA, ea)
	}
	if eb != nil {
		return nil, fmt.Errorf("%s: %w", d.NameB, eb)
	}
	for i := range reqs {
		if w := Compare(d.NameA, d.NameB, ra[i], rb[i]); w != "" {
			dis := &Disagreement{Request: reqs[i], Where: w}
			if d.SaveDir != "" {
				dis.File = d.save(reqs[i], ra[i], rb[i], w)
			}
			return nil, dis
		}
	}
	return ra, nil
}

// mutant is req with one change drawn from seed (and the request's own
// length, so that requests of one batch differ).
func mutant(req *sim.Request, seed uint64) *sim.Request {
	out := *req
	n := len(req.Actions)
	if n == 0 {
		return &out
	}
	h := splitmix(seed ^ uint64(n)*0x9e3779b97f4a7c15)
	i := int(h % uint64(n))
	acts := append([]sim.Action{}, req.Actions...)
	switch (h >> 32) % 4 {
	case 0: // remove action i
		acts = append(acts[:i], acts[i+1:]...)
	case 1: // duplicate action i
		acts = append(acts[:i+1], acts[i:]...)
	case 2: // swap actions i and i+1
		if i+1 < n {
			acts[i], acts[i+1] = acts[i+1], acts[i]
		}
	case 3: // move an integer parameter of action i by one
		a := acts[i]
		if len(a.Params) > 0 {
			keys := make([]string, 0, len(a.Params))
			for k := range a.Params {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			k := keys[int(h>>40)%len(keys)]
			if v, ok := asInt(a.Params[k]); ok {
				p := make(map[string]any, len(a.Params))
				for kk, vv := range a.Params {
					p[kk] = vv
				}
				if h>>48&1 == 0 {
					v++
				} else {
					v--
				}
				p[k] = v
				acts[i] = sim.Action{Name: a.Name, Params: p}
			}
		}
	}
	out.Actions = acts
	return &out
}

func asInt(x any) (int64, bool) {
	switch t := x.(type) {
	case int:
		return int64(t), true
	case int64:
		return t, true
	case json.Number:
		v, err := t.Int64()
		return v, err == nil
	case float64:
		return int64(t), t == float64(int64(t))
	}
	return 0, false
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// save writes a disagreement into SaveDir and returns the file ("" when
// it could not be written).
func (d *Diff) save(req *sim.Request, a, b *sim.Result, where string) string {
	if err := os.MkdirAll(d.SaveDir, 0o755); err != nil {
		return ""
	}
	f, err := os.CreateTemp(d.SaveDir, "disagreement-*.json")
	if err != nil {
		return ""
	}
	defer f.Close()
	enc := json.NewEncoder(f)
	enc.SetIndent("", "  ")
	if err := enc.Encode(map[string]any{"where": where, "request": req, d.NameA: a, d.NameB: b}); err != nil {
		return ""
	}
	return f.Name()
}
