package tlc

import (
	"github.com/modelfuzz/modelfuzz/tlc/eval"
	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// Definition evaluates a definition of the trace spec that takes no
// parameter (one of TraceSpec.Extend's module, say) in state s of the
// spec, with the trace added so far: what a state predicate about the
// trace and the spec's state (a known disagreement's witness) says there.
func (t *Trace) Definition(name string, s []Value) (Value, error) {
	ev := t.v.pool.Get().(*eval.Evaluator)
	defer t.v.pool.Put(ev)
	if err := ev.Bind(eval.Input{Env: t.v.env, NDJSON: map[string][]value.Value{MemoryTrace: t.events}}); err != nil {
		return nil, err
	}
	return ev.Definition(name, s)
}
