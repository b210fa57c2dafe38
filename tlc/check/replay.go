package check

import (
	"errors"
	"fmt"

	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// rebuild is the error trace to the state recorded at id, as TLC rebuilds
// one: the traceLog gives the chain of fingerprints from an initial state,
// and the states are found again by enumerating the initial states and
// then each state's successors for the one with the next fingerprint. The
// trace is what was rebuilt, all of it unless the error says otherwise
// (an Init or Next that does not give the same states twice, such as one
// reading a file that changed).
func (c *checker) rebuild(id uint64) ([]State, error) {
	fps := c.log.fps(id)
	ev := c.m.NewEvaluator()
	ev.Quiet()
	ev.SetLevel(1)
	var cur []value.Value
	errFound := errors.New("found")
	var ferr error
	match := func(want uint64) func(s []value.Value) error {
		return func(s []value.Value) error {
			fp, err := c.fingerprint(ev, s)
			if err != nil {
				ferr = err
				return err
			}
			if fp == want {
				cur = s
				return errFound
			}
			return nil
		}
	}
	var out []State
	for k, fp := range fps {
		cur = nil
		var err error
		if k == 0 {
			err = ev.Init(match(fp))
		} else {
			ev.SetLevel(k)
			err = ev.Next(out[k-1].Values, match(fp))
		}
		if cur == nil {
			if err == nil || err == ferr {
				err = fmt.Errorf("no state has the recorded fingerprint")
			}
			return out, fmt.Errorf("the trace could not be rebuilt beyond state %d: %v", k, err)
		}
		out = append(out, State{Vars: c.m.Vars, Values: cur})
	}
	return out, nil
}
