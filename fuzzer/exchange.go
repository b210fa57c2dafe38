package fuzzer

import (
	"time"

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

// VisitExchange is an Exchange that also shares what the rare energy
// schedule judges inputs by: how often the campaigns visit the guide's
// items, and how often they chose each input of the pool to mutate. The
// campaigns then judge rarity and energy by the work of all of them, as
// one campaign would, rather than by their own share of it (a state the
// others visit often is common here too; an input the others mutated
// many times earns more mutants, as AFLFast's schedule gives one chosen
// again).
type VisitExchange interface {
	Exchange
	// ShareVisits sends what this campaign did since the last call. It
	// must not block, nor keep v.
	ShareVisits(v Visits)
}

// Visits is the work of one or more campaigns as the rare schedule counts
// it.
type Visits struct {
	// Items: guide item -> the executions that reached it.
	Items map[uint64]uint32
	// Chosen: an input of the pool, named by the first guide item it
	// reached (one campaign's own first find) -> the times it was chosen.
	Chosen map[uint64]uint32
}

// visitsEvery is how often a campaign shares its Visits: the visits of
// one execution are mostly of states every execution visits, and a count
// sent once for many executions costs the others one addition.
const visitsEvery = 250 * time.Millisecond

// Shared is what other campaigns of an exchange found: coverage items,
// which are then not new here, and the inputs they kept, which join this
// campaign's queue or pool; with a VisitExchange, the others' Visits,
// added to this campaign's.
type Shared struct {
	Coverage []record.CoverageItems
	Inputs   []*record.InputRecord
	Visits   Visits
}

// absorb takes in what the other campaigns of the exchange found: their
// coverage items join the coverage sets (a state any of them reached is
// not new here), their inputs the queue (EnergyFixed: mutants of each) or
// the pool (EnergyRare). Nothing of it is stored here: it is the others'.
func (f *Fuzzer) absorb() {
	if f.opt.Exchange == nil {
		return
	}
	f.shareVisits(false)
	in := f.opt.Exchange.Incoming()
	if f.hits != nil {
		for x, n := range in.Visits.Items {
			f.hits.Add(x, n)
		}
	}
	if f.chosenElse != nil {
		for x, n := range in.Visits.Chosen {
			f.chosenElse[x] = satAdd(f.chosenElse[x], n)
		}
	}
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
			e := &entry{in: rec.Input, items: rec.GuideItems, chosen: 1}
			if f.chosenElse != nil {
				e.chosen = 0 // its finder's choices arrive with the visits
			}
			if len(rec.GuideSteps) == len(rec.GuideItems) {
				e.steps = rec.GuideSteps // its tail is cut at its rarest state, as its finder's
			}
			f.addEntry(r, e)
			continue
		}
		for k := 0; k < max(1, len(rec.GuideItems))*f.opt.Mutations; k++ {
			if !f.push(queued{from: rec.Input, mutant: mutate.Ordinary(r)}) {
				break
			}
		}
	}
}

// shareVisits shares the rare schedule's work since it was last shared,
// when visitsEvery has passed since (or now: a session that ends).
func (f *Fuzzer) shareVisits(now bool) {
	out := f.visitsOut
	if len(out.Items) == 0 && len(out.Chosen) == 0 || !now && time.Since(f.visitsShared) < visitsEvery {
		return
	}
	f.opt.Exchange.(VisitExchange).ShareVisits(out)
	clear(out.Items)
	clear(out.Chosen)
	f.visitsShared = time.Now()
}
