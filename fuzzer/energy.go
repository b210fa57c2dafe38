package fuzzer

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/modelfuzz/modelfuzz/mutate"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// The energy schedules: how many mutants an interesting input gets and
// which input is mutated next (Params.Energy).
const (
	// EnergyFixed is the thesis's policy: every input that reached new
	// items gets Mutations mutants per new item, queued first in, first
	// out; SeedPopulation random inputs are added every ReseedEvery
	// iterations.
	EnergyFixed = "fixed"
	// EnergyRare follows AFLFast's "fast" power schedule (Böhme et al.,
	// CCS 2016) with the guide's items in place of paths: the inputs that
	// reached new items form a pool; the next input to mutate is the
	// rarest of a few drawn from the pool (the one whose least-visited
	// item the campaign has visited least often), and it gets
	// min(Mutations * 2^min(s,4) / f, 16 * Mutations) mutants, s the times
	// it was chosen before, f that visit count; half of them keep its
	// prefix up to the step at which it reached that least-visited item (a
	// random prefix when the guide does not say at which step) and draw the
	// rest of the steps at random (the prefix reaches the rare state, the
	// tail explores beyond), the others are ordinary mutants, each of 1 to
	// Stack rounds of mutation (AFL's stacked havoc: a mutant that differs
	// in a few steps of a long schedule mostly retraces its parent). A share
	// FreshShare of the iterations runs new random inputs. The choices
	// are package mutate's (Rarest, Energy, Cut, RareMutant, Havoc); the
	// pool is the loop's.
	EnergyRare = "rare"
)

// entryItems is how many of the guide's items a pool entry keeps.
const entryItems = 8

// entry is an input of the rare schedule's pool.
type entry struct {
	in     *schedule.Input
	id     uint64
	items  []uint64 // the guide's items it reached first (at most entryItems)
	steps  []int    // parallel to items, the step that reached each (nil: unknown)
	genome []byte   // the genome its execution was made from (OnlineGenomes; nil: none)
	chosen uint32
}

// validEnergy checks the energy settings.
func validEnergy(p Params) error {
	switch p.Energy {
	case "", EnergyFixed, EnergyRare, EnergyBandit:
	default:
		return fmt.Errorf("--energy must be %s, %s or %s, got %q", EnergyFixed, EnergyRare, EnergyBandit, p.Energy)
	}
	if math.IsNaN(p.FreshShare) || p.FreshShare < 0 || p.FreshShare >= 1 {
		return fmt.Errorf("--fresh-share must be in [0, 1), got %g", p.FreshShare)
	}
	if p.Stack < 0 {
		return fmt.Errorf("--stack must not be negative, got %d", p.Stack)
	}
	if p.Stack > MaxStack {
		return fmt.Errorf("--stack %d: at most %d rounds of mutation a mutant (fuzzer.MaxStack)", p.Stack, MaxStack)
	}
	return nil
}

// rare reports whether the campaign mutates a pool (EnergyRare and
// EnergyBandit).
func (f *Fuzzer) rare() bool { return f.opt.Energy == EnergyRare || f.opt.Energy == EnergyBandit }

// visits is how often the campaign visited e's least-visited item (at
// least 1: an entry is never infinitely rare).
func (f *Fuzzer) visits(e *entry) uint32 {
	v := ^uint32(0)
	for _, x := range e.items {
		v = min(v, f.hits.Get(x))
	}
	return max(v, 1)
}

// rarity is what the rare schedule judges e by: its choices count the
// other campaigns' of an exchange that shares them.
func (f *Fuzzer) rarity(e *entry) mutate.Rarity {
	chosen := e.chosen
	if f.chosenElse != nil && len(e.items) > 0 {
		chosen = satAdd(chosen, f.chosenElse[e.items[0]])
	}
	return mutate.Rarity{Visits: f.visits(e), Chosen: chosen}
}

// poolRarity is the rarity of the pool's entry i.
func (f *Fuzzer) poolRarity(i int) mutate.Rarity { return f.rarity(f.pool[i]) }

// addEntry puts an interesting input in the pool; a full pool (QueueMax)
// first loses its most common entry among a few drawn.
func (f *Fuzzer) addEntry(r *rand.Rand, e *entry) {
	if len(f.pool) < f.opt.QueueMax {
		f.pool = append(f.pool, e)
		return
	}
	i := mutate.Commonest(r, len(f.pool), f.poolRarity)
	f.pool[i] = e
	f.dropped++
}

// nextRare is next under the rare schedule. The first SeedPopulation
// iterations run the same random inputs as under the fixed schedule; a
// campaign whose pool is still empty keeps adding random inputs.
func (f *Fuzzer) nextRare(iter int64, r *rand.Rand) queued {
	if f.qhead >= len(f.queue) && len(f.pool) == 0 {
		for i := 0; i < f.opt.SeedPopulation; i++ {
			f.push(f.fresh(r))
		}
	}
	if iter > int64(f.opt.SeedPopulation) {
		if f.bandit != nil {
			switch f.bandit.choose(r, f.opt.OnlineSeeds, len(f.pool) > 0) {
			case armRandom:
				return queued{in: f.gen.Random(r), arm: armRandom}
			case armOnline:
				return queued{online: true, arm: armOnline}
			}
		} else if r.Float64() < f.opt.FreshShare {
			return f.fresh(r)
		}
	}
	if f.qhead >= len(f.queue) {
		e := f.pool[mutate.Rarest(r, len(f.pool), f.poolRarity)]
		n := mutate.Energy(f.opt.Mutations, f.rarity(e))
		e.chosen++
		if f.visitsOut.Chosen != nil && len(e.items) > 0 {
			f.visitsOut.Chosen[e.items[0]]++
		}
		if e.genome != nil {
			// A mutant of the genome, executed online again.
			g := f.opt.Online.(Genomes)
			for k := 0; k < n; k++ {
				mg, _, err := g.MutateGenome(e.genome, r)
				if err != nil {
					// Not expected: a genome is checked when it is
					// restored, and the strategy wrote it.
					f.opt.Logf("input %d: its genome cannot be mutated (%v); its steps are mutated instead", e.id, err)
					e.genome = nil
					break
				}
				f.push(queued{online: true, genome: mg, parent: e.id, arm: armMutant})
			}
			if e.genome != nil {
				return f.pop()
			}
		}
		keep := mutate.Cut(e.items, e.steps, f.hits.Get)
		for k := 0; k < n; k++ {
			mu := mutate.RareMutant(r, keep)
			if f.opt.OnlineTails {
				mu = mutate.RareMutantOnline(r, keep)
			} else if f.opt.OrderMutants {
				mu = mutate.RareMutantOrder(r, keep)
			}
			f.push(queued{from: e.in, mutant: mu, parent: e.id})
		}
	}
	return f.pop()
}
