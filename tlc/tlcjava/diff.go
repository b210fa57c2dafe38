package tlcjava

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
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

	mu       sync.Mutex
	compared int64
}

// Compared counts the requests both engines answered alike.
func (d *Diff) Compared() int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.compared
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
	d.mu.Lock()
	d.compared += int64(len(reqs))
	d.mu.Unlock()
	return ra, nil
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
