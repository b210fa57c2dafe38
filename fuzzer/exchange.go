package fuzzer

import (
	"github.com/modelfuzz/modelfuzz/mutate"
	"github.com/modelfuzz/modelfuzz/record"
)

// Exchange shares a campaign with others that run it on other machines (a
// hub): what this campaign stores goes out through its record.Store; what
// the others found comes in through Incoming, between batches. A campaign
// with an exchange is no longer reproducible from its seed alone: what it
// mutates depends on when the others' inputs arrive.
type Exchange interface {
	// Incoming returns, without blocking, what the others found since the
	// last call.
	Incoming() Shared
	// Claim reports whether this campaign minimizes the bug of this
	// signature: false when another campaign of the exchange claimed it
	// first, so that a bug found by several is minimized once.
	Claim(signature string) bool
}

// Shared is what other campaigns of an exchange found: coverage items,
// which are then not new here, and the inputs they kept, which join this
// campaign's queue or pool.
type Shared struct {
	Coverage []record.CoverageItems
	Inputs   []*record.InputRecord
}

// absorb takes in what the other campaigns of the exchange found: their
// coverage items join the coverage sets (a state any of them reached is
// not new here), their inputs the queue (EnergyFixed: mutants of each) or
// the pool (EnergyRare). Nothing of it is stored here: it is the others'.
func (f *Fuzzer) absorb() {
	if f.opt.Exchange == nil {
		return
	}
	in := f.opt.Exchange.Incoming()
	for _, c := range in.Coverage {
		if cov := f.cov[c.Measure]; cov != nil {
			cov.Add(cov.New(c.Items))
		}
	}
	if len(in.Inputs) == 0 {
		return
	}
	spec := f.fac.Spec()
	r := f.rng(-2 - f.counters.Iterations)
	for _, rec := range in.Inputs {
		if rec.Input == nil || rec.Input.Validate(spec) != nil {
			continue // another system's input cannot run here; the settings check keeps these out
		}
		if f.rare() {
			// Counted as chosen once: the campaign that found it mutates
			// it first, the others after their own new inputs, rather
			// than all of them at once.
			f.addEntry(r, &entry{in: rec.Input, items: rec.GuideItems, chosen: 1})
			continue
		}
		for k := 0; k < max(1, len(rec.GuideItems))*f.opt.Mutations; k++ {
			if !f.push(queued{from: rec.Input, mutant: mutate.Ordinary(r)}) {
				break
			}
		}
	}
}
