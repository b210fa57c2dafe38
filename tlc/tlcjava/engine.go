package tlcjava

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sort"
	"strconv"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/modelfuzz/modelfuzz/tlc/sidecar"
	"github.com/modelfuzz/modelfuzz/tlc/sim"
	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// Options say how to run TLC as the model engine.
type Options struct {
	// Jar is tla2tools.jar ("": $TLA2TOOLS).
	Jar string
	// CacheDir keeps the compiled server ("": DefaultCacheDir).
	CacheDir string
	// Module and Config are the spec's files as TLC reads them (see
	// tlc.WriteForTLC), Libs more directories to find modules in.
	Module, Config string
	Libs           []string
	// Vars are the model's variables in the native engine's order: the
	// abstract state of a model without a VIEW is their tuple. Nil orders
	// them by name.
	Vars []string
	// JVMArgs go before the classpath (default -XX:+UseParallelGC).
	JVMArgs []string
	// StartTimeout bounds the JVM's start up to a healthy server (default
	// 5 minutes: a JVM that parses a spec on a loaded machine takes a
	// while, and a restart that gives up loses executions).
	StartTimeout time.Duration
	// RequestTimeout bounds each request (default 10 minutes): a request
	// that takes longer counts as a hung JVM, which is restarted. A batch
	// of long raft.tla executions took TLC over 2 minutes at a load of
	// 100 on 2 cores.
	RequestTimeout time.Duration
	// Stderr receives TLC's messages (default: dropped, the last line
	// kept for errors).
	Stderr io.Writer
	Logger hclog.Logger
	// Explainer, when set, is the native engine on the same model: TLC
	// says that an action is not enabled, not which conjunct of it is
	// false, so the conjunct (and the call) of a divergence come from the
	// native engine's probe of the same state, when it diverges there
	// for the same reason. Without it a divergence has no conjunct.
	Explainer sidecar.Simulator
}

// Engine is TLC as a supervised model engine. It implements
// sidecar.Simulator and is safe for concurrent use.
type Engine struct {
	p       *sidecar.Process
	vars    []string
	explain sidecar.Simulator
	log     hclog.Logger
	// Compile and Start are how long compiling the server (0 when it was
	// cached) and starting the JVM up to its first healthy answer took.
	Compile, Start time.Duration
}

var _ sidecar.Simulator = (*Engine)(nil)

// Start compiles the server if needed and launches TLC.
func Start(ctx context.Context, opt Options) (*Engine, error) {
	t0 := time.Now()
	c, err := Compile(opt.Jar, opt.CacheDir)
	if err != nil {
		return nil, err
	}
	e := &Engine{vars: opt.Vars, explain: opt.Explainer, log: opt.Logger}
	if e.log == nil {
		e.log = hclog.NewNullLogger()
	}
	if !c.Cached {
		e.Compile = time.Since(t0)
	}
	java, err := exec.LookPath("java")
	if err != nil {
		return nil, errors.New("--tlc java needs Java: java is not on the PATH (install a JDK, e.g. apt-get install default-jdk-headless)")
	}
	args := opt.JVMArgs
	if args == nil {
		args = []string{"-XX:+UseParallelGC"}
	}
	args = append(append([]string{}, args...), "-cp", c.Classpath(), MainClass, opt.Module, opt.Config)
	args = append(args, opt.Libs...)
	if opt.StartTimeout <= 0 {
		opt.StartTimeout = 5 * time.Minute
	}
	if opt.RequestTimeout <= 0 {
		opt.RequestTimeout = 10 * time.Minute
	}
	t1 := time.Now()
	p, err := sidecar.Launch(ctx, sidecar.LaunchOptions{
		Binary:         java,
		Args:           args,
		StartTimeout:   opt.StartTimeout,
		RequestTimeout: opt.RequestTimeout,
		Stderr:         opt.Stderr,
		Logger:         opt.Logger,
		Name:           "TLC's JVM",
	})
	if err != nil {
		return nil, err
	}
	e.Start = time.Since(t1)
	e.p = p
	return e, nil
}

// Simulate runs req on TLC.
func (e *Engine) Simulate(ctx context.Context, req *sim.Request) (*sim.Result, error) {
	res, err := e.p.Simulate(ctx, req)
	if err != nil {
		if !errors.Is(err, sidecar.ErrClosed) {
			e.log.Error("TLC did not answer: the execution is lost to the campaign (a harness error)", "error", err)
		}
		return nil, err
	}
	if err := e.rekey(res); err != nil {
		return nil, err
	}
	return res, e.explainDivergence(ctx, req, res)
}

// SimulateBatch runs several requests on TLC in one round trip.
func (e *Engine) SimulateBatch(ctx context.Context, reqs []*sim.Request) ([]*sim.Result, error) {
	out, err := e.p.SimulateBatch(ctx, reqs)
	if err != nil {
		if !errors.Is(err, sidecar.ErrClosed) { // closed: the campaign is stopping
			e.log.Error("TLC did not answer: the executions of this batch are lost to the campaign (harness errors)", "executions", len(reqs), "error", err)
		}
		return nil, err
	}
	for i, r := range out {
		if err := e.rekey(r); err != nil {
			return nil, err
		}
		if err := e.explainDivergence(ctx, reqs[i], r); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// explainDivergence fills in the conjunct of a divergence from the
// native engine (Options.Explainer).
func (e *Engine) explainDivergence(ctx context.Context, req *sim.Request, res *sim.Result) error {
	d := res.Divergence
	if e.explain == nil || d == nil || d.Reason != "not enabled" || d.Index < 0 || d.Index >= len(req.Actions) {
		return nil
	}
	f := false
	nr, err := e.explain.Simulate(ctx, &sim.Request{Actions: req.Actions[:d.Index+1], Init: req.Init, States: &f})
	if err != nil {
		return fmt.Errorf("explaining TLC's divergence with the native engine: %w", err)
	}
	if nd := nr.Divergence; nd != nil && nd.Index == d.Index && nd.Reason == d.Reason {
		d.Conjunct, d.At, d.Context, d.ContextAt, d.Call = nd.Conjunct, nd.At, nd.Context, nd.ContextAt, nd.Call
	}
	return nil
}

// Model describes the model as TLC sees it.
func (e *Engine) Model(ctx context.Context) (*sidecar.ModelInfo, error) { return e.p.Model(ctx) }

// Restarts counts the JVM's restarts.
func (e *Engine) Restarts() int { return e.p.Restarts() }

// PID is the JVM's process id.
func (e *Engine) PID() int { return e.p.PID() }

// URL is the server's base URL.
func (e *Engine) URL() string { return e.p.URL() }

// Close stops the JVM.
func (e *Engine) Close() error { return e.p.Close() }

// rekey replaces TLC's fingerprints by the native engine's keys of the
// same VIEW values, which the server sends along with every state.
func (e *Engine) rekey(res *sim.Result) error {
	res.Keys = make([]uint64, len(res.States))
	for i := range res.States {
		st := &res.States[i]
		k, err := e.key(st.View)
		if err != nil {
			return fmt.Errorf("TLC's state %d: %v", i, err)
		}
		st.Key = fmt.Sprintf("%016x", k)
		st.View = nil
		res.Keys[i] = k
	}
	return nil
}

// key is the native key of one state's encoded VIEW value (or variables).
func (e *Engine) key(raw json.RawMessage) (uint64, error) {
	if len(raw) == 0 {
		return 0, errors.New("no VIEW value in TLC's answer")
	}
	x, err := decodeJSON(raw)
	if err != nil {
		return 0, err
	}
	if m, ok := x.(map[string]any); ok {
		if vars, ok := m["vars"].(map[string]any); ok && len(m) == 1 {
			names := e.vars
			if names == nil {
				for n := range vars {
					names = append(names, n)
				}
				sort.Strings(names)
			}
			vals := make([]value.Value, len(names))
			for i, n := range names {
				enc, ok := vars[n]
				if !ok {
					return 0, fmt.Errorf("TLC's state has no variable %s", n)
				}
				if vals[i], err = Decode(enc); err != nil {
					return 0, fmt.Errorf("variable %s: %v", n, err)
				}
			}
			if len(vars) != len(names) {
				return 0, fmt.Errorf("TLC's state has %d variables, the model %d", len(vars), len(names))
			}
			return value.FingerprintTuple(vals), nil
		}
	}
	v, err := Decode(x)
	if err != nil {
		return 0, err
	}
	return value.Fingerprint(v), nil
}

func decodeJSON(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return nil, err
	}
	return x, nil
}

// Decode turns a value in the server's tagged JSON into a native value:
// integers and booleans as they are, {"s":..} a string, {"m":..} a model
// value, {"set":[..]} a set, {"fn":[[k,v],..]} a function.
func Decode(x any) (value.Value, error) {
	switch t := x.(type) {
	case json.Number:
		i, err := strconv.ParseInt(string(t), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("number %s is not an integer", t)
		}
		return value.IntOf(i), nil
	case bool:
		return value.Bool(t), nil
	case map[string]any:
		if len(t) != 1 {
			break
		}
		if s, ok := t["s"].(string); ok {
			return value.Str(s), nil
		}
		if s, ok := t["m"].(string); ok {
			if mv, ok := value.LookupModelValue(s); ok {
				return mv, nil
			}
			return value.NewModelValue(s), nil
		}
		if l, ok := t["set"].([]any); ok {
			elems := make([]value.Value, len(l))
			for i, e := range l {
				v, err := Decode(e)
				if err != nil {
					return nil, err
				}
				elems[i] = v
			}
			return value.NewSet(elems...), nil
		}
		if l, ok := t["fn"].([]any); ok {
			dom := make([]value.Value, len(l))
			vals := make([]value.Value, len(l))
			for i, e := range l {
				pair, ok := e.([]any)
				if !ok || len(pair) != 2 {
					return nil, errors.New("a function's pair is not [key, value]")
				}
				k, err := Decode(pair[0])
				if err != nil {
					return nil, err
				}
				v, err := Decode(pair[1])
				if err != nil {
					return nil, err
				}
				dom[i], vals[i] = k, v
			}
			return value.NewFunc(dom, vals)
		}
	}
	return nil, fmt.Errorf("not a value of TLC's answer: %v", x)
}
