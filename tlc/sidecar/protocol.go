package sidecar

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"runtime"
	"sync/atomic"

	"github.com/modelfuzz/modelfuzz/tlc/sim"
)

// The protocol's paths, versioned.
const (
	PathSimulate = "/v1/simulate"
	// PathSimulateBatch takes {"requests":[request, ...]} and answers
	// {"results":[result, ...]}, one result per request as /v1/simulate
	// would give it (an unknown action is a divergence of its result): a
	// fuzzer executing several inputs ahead pays one round trip for all.
	PathSimulateBatch = "/v1/simulate/batch"
	PathHealth        = "/v1/health"
	PathModel         = "/v1/model"
)

// TokenEnv is the environment variable that gives the server its bearer
// token; Launch sets it to a fresh random token for every process.
const TokenEnv = "MODELFUZZ_TLC_TOKEN"

// ReadyPrefix starts the one line the server prints on stdout when it
// accepts requests: "listening on http://127.0.0.1:PORT".
const ReadyPrefix = "listening on "

// DefaultMaxBody bounds a request body (16 MiB).
const DefaultMaxBody = 16 << 20

// Simulator simulates a sequence of model actions. sim.Simulator in
// process (InProc), a Client of a server and a supervised Process all
// implement it and answer the same Result for the same Request.
type Simulator interface {
	Simulate(ctx context.Context, req *sim.Request) (*sim.Result, error)
	// SimulateBatch runs several requests; results are in their order.
	SimulateBatch(ctx context.Context, reqs []*sim.Request) ([]*sim.Result, error)
}

// InProc adapts a *sim.Simulator to Simulator, without HTTP.
type InProc struct{ *sim.Simulator }

// Simulate runs req unless ctx is already done; a simulation in progress
// is not interrupted. It runs on one of the engine's long-lived workers
// (see sim.Parallel).
func (p InProc) Simulate(ctx context.Context, req *sim.Request) (*sim.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var res *sim.Result
	var err error
	sim.Parallel(1, func() { res, err = p.Simulator.Simulate(req) })
	return res, err
}

// SimulateBatch runs the requests on every core, as the server does: the
// simulations of a batch are independent (the simulator is safe for
// concurrent use, and its caches change how fast it answers, not what),
// and with --parallel the engine would otherwise be the one thing that
// runs on one core.
func (p InProc) SimulateBatch(ctx context.Context, reqs []*sim.Request) ([]*sim.Result, error) {
	out, errs := simulateAll(reqs, func(r *sim.Request) (*sim.Result, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return p.Simulator.Simulate(r)
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// simulateAll runs simulate on every request of a batch, on every core
// (the simulations of a batch are independent), and returns the results
// and errors by request.
func simulateAll(reqs []*sim.Request, simulate func(*sim.Request) (*sim.Result, error)) ([]*sim.Result, []error) {
	out := make([]*sim.Result, len(reqs))
	errs := make([]error, len(reqs))
	var next atomic.Int64
	sim.Parallel(min(runtime.GOMAXPROCS(0), len(reqs)), func() {
		for {
			i := int(next.Add(1) - 1)
			if i >= len(reqs) {
				return
			}
			out[i], errs[i] = simulate(reqs[i])
		}
	})
	return out, errs
}

var (
	_ Simulator = InProc{}
	_ Simulator = (*Client)(nil)
	_ Simulator = (*Process)(nil)
)

// Health answers GET /v1/health.
type Health struct {
	Status string `json:"status"`
	// Model is the name of the model's root module.
	Model string `json:"model"`
	// Requests counts the simulate requests received since the start.
	Requests int64 `json:"requests"`
}

// ModelInfo answers GET /v1/model.
type ModelInfo struct {
	Module     string       `json:"module"`
	Variables  []string     `json:"variables"`
	Actions    []ActionInfo `json:"actions"`
	Invariants []string     `json:"invariants"`
	// View says whether the cfg has a VIEW (the abstraction of the keys).
	View bool `json:"view"`
}

// ActionInfo is an action operator and its formal parameters, in order.
type ActionInfo struct {
	Name   string   `json:"name"`
	Params []string `json:"params"`
}

// errorBody is the body of every error answer. A 422 for an unknown
// action also carries the simulation result up to that action.
type errorBody struct {
	Error string `json:"error"`
	*sim.Result
}

// StatusError is an error answer of the server.
type StatusError struct {
	Code    int    // the HTTP status
	Message string // the server's message
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("sidecar: %d %s: %s", e.Code, http.StatusText(e.Code), e.Message)
}

// NewToken returns a random bearer token (32 hex digits).
func NewToken() string {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand panics rather than return an error)
	return hex.EncodeToString(b[:])
}
