package tlcjava

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/modelfuzz/modelfuzz/tlc/sidecar"
	"github.com/modelfuzz/modelfuzz/tlc/sim"
)

// Reference is a client of a TLC server that speaks the reference
// fuzzer's protocol (sidecar.PathExecute), as a Simulator: the keys are
// that server's fingerprints. The protocol says nothing of divergences,
// invariants or choices, so its results have none; it knows no initial
// state but the first (a request that selects one is refused), and what
// it visits past a disabled action is the server's own affair.
type Reference struct {
	base string
	hc   *http.Client
}

var _ sidecar.Simulator = (*Reference)(nil)

// NewReference returns a client of the server at baseURL
// ("http://HOST:PORT").
func NewReference(baseURL string, timeout time.Duration) *Reference {
	return &Reference{base: strings.TrimRight(baseURL, "/"), hc: &http.Client{Timeout: timeout}}
}

// Execute sends events and returns the answer.
func (r *Reference) Execute(ctx context.Context, events []sidecar.Event) (*sidecar.ExecuteAnswer, error) {
	body, err := json.Marshal(events)
	if err != nil {
		return nil, err
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, r.base+sidecar.PathExecute, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	hreq.Header.Set("Content-Type", "application/json")
	resp, err := r.hc.Do(hreq)
	if err != nil {
		return nil, fmt.Errorf("TLC server %s: %v", r.base, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return nil, fmt.Errorf("TLC server %s: reading the answer: %v", r.base, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("TLC server %s: %s: %s", r.base, resp.Status, firstLine(string(data)))
	}
	var a sidecar.ExecuteAnswer
	if err := json.Unmarshal(data, &a); err != nil {
		return nil, fmt.Errorf("TLC server %s: the answer is not {\"States\":[...],\"Keys\":[...]}: %v", r.base, err)
	}
	if len(a.States) != len(a.Keys) {
		return nil, fmt.Errorf("TLC server %s: %d states and %d keys in one answer", r.base, len(a.States), len(a.Keys))
	}
	return &a, nil
}

// Simulate sends req's actions as events.
func (r *Reference) Simulate(ctx context.Context, req *sim.Request) (*sim.Result, error) {
	if len(req.Init) > 0 {
		return nil, fmt.Errorf("the /execute protocol cannot select an initial state")
	}
	a, err := r.Execute(ctx, sidecar.Events(req))
	if err != nil {
		return nil, err
	}
	res := &sim.Result{States: make([]sim.State, len(a.Keys)), Violations: []sim.Violation{}, Keys: make([]uint64, len(a.Keys))}
	for i, k := range a.Keys {
		res.Keys[i] = uint64(k)
		// The protocol does not say after which action a state was
		// reached: states are numbered in order.
		res.States[i] = sim.State{Key: fmt.Sprintf("%016x", uint64(k)), Index: i}
	}
	return res, nil
}

// SimulateBatch runs the requests one after the other (the protocol has
// no batches).
func (r *Reference) SimulateBatch(ctx context.Context, reqs []*sim.Request) ([]*sim.Result, error) {
	out := make([]*sim.Result, len(reqs))
	for i, req := range reqs {
		res, err := r.Simulate(ctx, req)
		if err != nil {
			return nil, err
		}
		out[i] = res
	}
	return out, nil
}
