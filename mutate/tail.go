package mutate

import (
	"math/rand/v2"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// Tail returns a copy of in that keeps a random prefix of its steps (at
// least one) and continues it with random steps up to Shape.Steps: the
// prefix reaches what made in interesting, the new tail explores from
// there. Requests missing from the prefix (of Shape.Requests) are placed
// at random in the tail, numbered after the prefix's; crashes stay within
// the quota and restarts follow crashes. in is not modified.
//
// keep, when positive, is the prefix's length instead (at most in's): a
// caller that knows at which step in reached what made it interesting cuts
// right after it (Cut).
func (m *Mutator) Tail(r *rand.Rand, in *schedule.Input, keep int) *schedule.Input {
	switch {
	case keep > 0:
		keep = min(keep, len(in.Steps))
	default:
		keep = 1
		if len(in.Steps) > 1 {
			keep += r.IntN(len(in.Steps) - 1)
		}
	}
	out := &schedule.Input{Steps: append(make([]schedule.Step, 0, max(m.shape.Steps, keep)), in.Steps[:keep]...)}
	crashed := make([]bool, m.spec.Processes)
	crashes, requests, value := 0, 0, 0
	for _, s := range out.Steps {
		switch s.Action {
		case schedule.Crash:
			crashes++
			if s.Process < len(crashed) {
				crashed[s.Process] = true
			}
		case schedule.Restart:
			if s.Process < len(crashed) {
				crashed[s.Process] = false
			}
		case schedule.Request:
			requests++
			value = max(value, s.Value)
		}
	}
	n := m.shape.Steps - keep
	if n <= 0 {
		return out
	}
	isReq := make([]bool, n)
	for _, i := range r.Perm(n)[:min(n, max(0, m.shape.Requests-requests))] {
		isReq[i] = true
	}
	for i := 0; i < n; i++ {
		if isReq[i] {
			value++
			out.Steps = append(out.Steps, m.g.RequestStep(r, value))
			continue
		}
		out.Steps = append(out.Steps, m.g.RandomStep(r, crashed, &crashes))
	}
	return out
}

// Cut is where the tails of an input are cut: right after the step at
// which it reached the item the campaign has visited least, so that the
// new tail starts from that state. items are some of the items the input
// reached first, steps (parallel to items) the step that reached each,
// visits how often the campaign visited an item. It is 0, a random cut,
// when the step is not known.
func Cut(items []uint64, steps []int, visits func(item uint64) uint32) int {
	if len(steps) != len(items) {
		return 0
	}
	best, v := -1, ^uint32(0)
	for k, x := range items {
		if h := visits(x); h < v {
			best, v = k, h
		}
	}
	if best < 0 || steps[best] < 0 {
		return 0
	}
	return steps[best] + 1
}
