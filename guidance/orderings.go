package guidance

import (
	"hash/fnv"
	"math/bits"
	"slices"

	"github.com/modelfuzz/modelfuzz/fuzzer"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// StrategyModelOrderings is model guidance that also keeps the inputs
// whose executions reach a new ordering (OrderingsMeasure): an inbox
// deeper than before, a message of a type taking over more older ones, a
// process left with messages waiting for longer. The model's abstract
// states keep no in-flight messages, so the preconditions of the
// ordering bugs (a held rejection, the depth of a starved follower's
// inbox) reward nothing under model guidance alone; here an input that
// reaches one is kept and mutated like one that reached a new state. The
// orderings count for keeping and for the rare schedule's choice of
// inputs only: the model's coverage is the model's states, as under
// model guidance.
const StrategyModelOrderings = "model-orderings"

// OrderingsMeasure is a coverage of the orderings of an execution's
// messages, read from its trace (sends, receives, drops, crashes), in
// coarse buckets (0, 1, 2-3, 4-7, ... up to 32 and more):
//
//   - depth: per process, the most messages waiting in its inbox at once;
//   - overtaken: per process and message type, the most older messages
//     to the process, still waiting, that a received message overtook;
//   - starved: per process, the most input steps it went without
//     receiving while messages waited for it.
//
// Items are stable (a hash of kind, process, type and bucket), few (a few
// hundred on a three-process Raft), and each comes with the step that
// reached it, so the rare schedule cuts tails right after it.
type OrderingsMeasure struct{}

// Name implements fuzzer.Measure.
func (OrderingsMeasure) Name() string { return "orderings" }

// Measure implements fuzzer.Measure.
func (OrderingsMeasure) Measure(_ *schedule.Input, ex *schedule.Execution) (fuzzer.Observation, error) {
	items, steps := Orderings(ex.Trace)
	return fuzzer.Observation{Items: items, Steps: steps}, nil
}

// Orderings returns the ordering items of a trace (OrderingsMeasure), each
// once, with the step at which the execution first reached it.
func Orderings(t schedule.Trace) (items []uint64, steps []int) {
	type pending struct {
		msg  int
		step int
	}
	inbox := map[int][]pending{} // process -> waiting messages, oldest first
	since := map[int]int{}       // process -> step of its last receive (or of its first waiting message)
	seen := map[uint64]bool{}
	emit := func(kind byte, node int, typ string, n int, step int) {
		// Every bucket up to n's: a deeper ordering reaches the shallower
		// ones too, so an item is new only when it is deeper than before.
		for b := 0; b <= bucket(n); b++ {
			h := fnv.New64a()
			h.Write([]byte{kind, byte(node), byte(b)})
			h.Write([]byte(typ))
			x := h.Sum64()
			if !seen[x] {
				seen[x] = true
				items = append(items, x)
				steps = append(steps, step)
			}
		}
	}
	for _, e := range t {
		switch e.Kind {
		case schedule.EvSend, schedule.EvDuplicate:
			q := e.Peer
			if e.Kind == schedule.EvDuplicate {
				q = e.Node
			}
			if q < 0 || e.Msg == 0 {
				continue
			}
			if len(inbox[q]) == 0 {
				since[q] = e.Step
			}
			inbox[q] = append(inbox[q], pending{e.Msg, e.Step})
			emit('d', q, "", len(inbox[q]), e.Step)
		case schedule.EvRecv, schedule.EvDrop:
			q := e.Node
			i := slices.IndexFunc(inbox[q], func(p pending) bool { return p.msg == e.Msg })
			if i < 0 {
				continue
			}
			inbox[q] = slices.Delete(inbox[q], i, i+1)
			if e.Kind == schedule.EvRecv {
				emit('o', q, e.Type, i, e.Step)
				emit('s', q, "", e.Step-since[q], e.Step)
				since[q] = e.Step
			}
		case schedule.EvCrash, schedule.EvExit:
			inbox[e.Node] = nil
		}
	}
	return items, steps
}

// bucket is n's coarse bucket: 0, 1, 2-3, 4-7, 8-15, 16-31, 32 and more.
func bucket(n int) int {
	if n <= 0 {
		return 0
	}
	return min(bits.Len(uint(n)), 6)
}
