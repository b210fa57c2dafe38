package mutate

import (
	"math/rand/v2"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// Mutant says how one mutant of a parent input is made: the seed of its
// random choices and its kind, a tail (Tail, the parent's first Keep
// steps, 0: a random prefix) or an ordinary mutant (Havoc). A queue keeps
// a mutant as its parent and a Mutant, a few words instead of an input.
type Mutant struct {
	Seed uint64
	Tail bool
	Keep int
	// Online: an online tail, the parent's first Keep steps (0: a random
	// prefix, OnlinePrefix) and then the steps an online strategy chooses
	// while the system runs; Make does not make it.
	Online bool
	// Order: an ordering mutant (Reorder), its mutation after step Keep
	// half the time.
	Order bool
}

// Ordinary draws an ordinary mutant: its seed.
func Ordinary(r *rand.Rand) Mutant { return Mutant{Seed: r.Uint64()} }

// RareMutant draws one of the mutants the rare energy schedule gives a
// chosen input: half of them are tails cut at keep, the others ordinary.
func RareMutant(r *rand.Rand, keep int) Mutant {
	return Mutant{Seed: r.Uint64(), Tail: r.IntN(2) == 0, Keep: keep}
}

// RareMutantOnline draws one of the mutants the rare energy schedule
// gives a chosen input when an online strategy builds tails: a third of
// them online tails cut at keep, a third random tails cut at keep (model
// guidance's own), a third ordinary.
func RareMutantOnline(r *rand.Rand, keep int) Mutant {
	return rareThirds(r, Mutant{Online: true, Keep: keep}, keep)
}

// RareMutantOrder draws one of the mutants the rare energy schedule gives
// a chosen input when ordering mutants are in use: a third of them
// ordering mutants (Reorder) after keep, a third random tails cut at keep
// (model guidance's own), a third ordinary.
func RareMutantOrder(r *rand.Rand, keep int) Mutant {
	return rareThirds(r, Mutant{Order: true, Keep: keep}, keep)
}

// rareThirds draws special (its seed drawn here), a random tail cut at
// keep or an ordinary mutant, a third each.
func rareThirds(r *rand.Rand, special Mutant, keep int) Mutant {
	switch r.IntN(3) {
	case 0:
		special.Seed = r.Uint64()
		return special
	case 1:
		return Mutant{Seed: r.Uint64(), Tail: true, Keep: keep}
	}
	return Mutant{Seed: r.Uint64()}
}

// OnlinePrefix is the prefix of online tail mu of parent (id its id in
// the corpus): its first mu.Keep steps (at most all of them), or, when
// Keep is 0, a prefix of random length drawn as Tail draws it.
func OnlinePrefix(parent *schedule.Input, id uint64, mu Mutant) []schedule.Step {
	keep := min(mu.Keep, len(parent.Steps))
	if keep <= 0 {
		r := rand.New(rand.NewPCG(mu.Seed, id))
		keep = 1
		if len(parent.Steps) > 1 {
			keep += r.IntN(len(parent.Steps) - 1)
		}
	}
	return append([]schedule.Step(nil), parent.Steps[:keep]...)
}

// Make makes mutant mu of parent; id, the parent's id in the corpus, and
// mu.Seed seed its random choices. An ordinary mutant gets up to stack
// rounds of mutation (Havoc).
func (m *Mutator) Make(parent *schedule.Input, id uint64, mu Mutant, stack int) *schedule.Input {
	r := rand.New(rand.NewPCG(mu.Seed, id))
	if mu.Tail {
		return m.Tail(r, parent, mu.Keep)
	}
	if mu.Order {
		return m.Reorder(r, parent, mu.Keep)
	}
	return m.Havoc(r, parent, stack)
}

// Havoc is AFL's stacked havoc: a mutant of 1 to stack rounds of Mutate,
// the number drawn uniformly (stack 0 and 1: one round, no draw). A mutant
// that differs in a few steps of a long schedule mostly retraces its
// parent; more rounds move it further. in is not modified.
func (m *Mutator) Havoc(r *rand.Rand, in *schedule.Input, stack int) *schedule.Input {
	out := m.Mutate(r, in)
	if stack > 1 {
		for k := r.IntN(stack); k > 0; k-- {
			out = m.Mutate(r, out)
		}
	}
	return out
}

// The rare energy schedule's choices (fuzzer.EnergyRare): which input of
// its pool is mutated next, and how many mutants it gets.
const (
	// Tournament is how many inputs of the pool are drawn per choice.
	Tournament = 8
	// MaxPower: 2^MaxPower is the most an input's energy grows with the
	// times it was chosen.
	MaxPower = 4
)

// Rarity is what the rare schedule judges an input by: how often the
// campaign visited the least-visited item it reached first (at least 1),
// and how often the input was chosen for mutation before.
type Rarity struct {
	Visits uint32
	Chosen uint32
}

// Rarer orders inputs for mutation: fewer visits, then fewer choices.
func (a Rarity) Rarer(b Rarity) bool {
	if a.Visits != b.Visits {
		return a.Visits < b.Visits
	}
	return a.Chosen < b.Chosen
}

// Rarest returns the rarest of Tournament inputs drawn at random from a
// pool of n (the rarity of input i), ties to the later one: the input to
// mutate next.
func Rarest(r *rand.Rand, n int, rarity func(i int) Rarity) int {
	return tournament(r, n, rarity, func(a, b Rarity) bool { return a.Rarer(b) })
}

// Commonest returns the most common of Tournament inputs drawn at random
// from a pool of n, ties to the later one: the input a full pool gives up.
func Commonest(r *rand.Rand, n int, rarity func(i int) Rarity) int {
	return tournament(r, n, rarity, func(a, b Rarity) bool { return b.Rarer(a) })
}

// tournament returns the best of Tournament draws (better(a, b) says a
// wins), ties to the later one.
func tournament(r *rand.Rand, n int, rarity func(i int) Rarity, better func(a, b Rarity) bool) int {
	best := -1
	for k := 0; k < Tournament; k++ {
		i := r.IntN(n)
		if best < 0 || better(rarity(i), rarity(best)) || !better(rarity(best), rarity(i)) && i > best {
			best = i
		}
	}
	return best
}

// Energy is the number of mutants an input of rarity x gets when chosen,
// AFLFast's "fast" schedule with mutations as its base:
// min(mutations * 2^min(chosen, MaxPower) / visits, 16 * mutations), at
// least 1.
func Energy(mutations int, x Rarity) int {
	n := uint64(max(mutations, 1)) << min(x.Chosen, MaxPower) / uint64(max(x.Visits, 1))
	return int(max(1, min(n, uint64(16*max(mutations, 1)))))
}
