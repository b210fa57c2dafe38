package mapper

import (
	"fmt"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// MicrobenchParams is what the microbench mapper needs to know of the
// system that made a trace: the sizes the model's constants must match.
type MicrobenchParams struct {
	Workers int // worker processes
	Tasks   int // execute messages per request
}

// Microbench maps adapters/microbench traces onto models/microbench.tla.
type Microbench struct {
	p MicrobenchParams
}

// NewMicrobench returns the mapper for the traces of a system with the
// parameters p.
func NewMicrobench(p MicrobenchParams) *Microbench { return &Microbench{p: p} }

// Consts are the model's constants that must match the system.
func (m *Microbench) Consts() []string {
	return []string{fmt.Sprintf("Workers=%d", m.p.Workers), fmt.Sprintf("Tasks=%d", m.p.Tasks)}
}

func arg(e *schedule.Event, key string) (int64, bool) {
	for _, a := range e.Args {
		if a.Key == key && !a.IsStr {
			return a.Int, true
		}
	}
	return 0, false
}

// Map implements schedule.Mapper. Every message the system handles becomes
// the action of the model that handles it, with the message's contents as
// parameters; sends, client arrivals and responses change nothing the
// model tracks.
func (m *Microbench) Map(_ *schedule.Input, ex *schedule.Execution) ([]schedule.ModelAction, error) {
	var out []schedule.ModelAction
	t := ex.Trace
	cur := 0 // the index of e, the event being mapped
	add := func(e *schedule.Event, name string, params map[string]any) {
		out = append(out, schedule.ModelAction{Name: name, Params: params, Step: e.Step, Event: cur})
	}
	need := func(e *schedule.Event, keys ...string) ([]int64, error) {
		vs := make([]int64, len(keys))
		for i, k := range keys {
			v, ok := arg(e, k)
			if !ok {
				return nil, fmt.Errorf("microbench mapper: %s event of %s has no %q", e.Type, e.Kind, k)
			}
			vs[i] = v
		}
		return vs, nil
	}
	for i := range t {
		e := &t[i]
		cur = i
		switch {
		case e.Kind == "start":
			add(e, "Start", map[string]any{"p": int64(e.Node)})
		case e.Kind != schedule.EvRecv:
			continue
		case e.Node == 0 && e.Type == "register":
			add(e, "RecvRegister", map[string]any{"p": int64(e.Peer)})
		case e.Node == 0 && e.Type == "request":
			v, err := need(e, "value")
			if err != nil {
				return nil, err
			}
			// The master's reaction tells which action this is: a
			// rejection, or the first execute of the served request.
			if i+1 < len(t) && t[i+1].Kind == schedule.EvResponse && t[i+1].Type == "rejected" {
				add(e, "Reject", map[string]any{"v": v[0]})
				continue
			}
			if i+1 < len(t) && t[i+1].Kind == schedule.EvSend && t[i+1].Type == "execute" {
				r, err := need(&t[i+1], "req")
				if err != nil {
					return nil, err
				}
				add(e, "Serve", map[string]any{"v": v[0], "r": r[0], "w": int64(t[i+1].Peer)})
				continue
			}
			return nil, fmt.Errorf("microbench mapper: the master received request %d but neither served nor rejected it", v[0])
		case e.Node == 0 && e.Type == "done":
			v, err := need(e, "req")
			if err != nil {
				return nil, err
			}
			add(e, "RecvDone", map[string]any{"r": v[0]})
		case e.Node == 1 && e.Type == "terminate":
			v, err := need(e, "req", "worker")
			if err != nil {
				return nil, err
			}
			add(e, "Terminate", map[string]any{"r": v[0], "w": v[1] + 1})
		case e.Node >= 2 && e.Type == "execute":
			v, err := need(e, "req", "task")
			if err != nil {
				return nil, err
			}
			add(e, "Execute", map[string]any{"w": int64(e.Node), "r": v[0], "k": v[1]})
		case e.Node >= 2 && e.Type == "flush":
			v, err := need(e, "req")
			if err != nil {
				return nil, err
			}
			add(e, "Flush", map[string]any{"w": int64(e.Node), "r": v[0]})
		}
	}
	return out, nil
}
