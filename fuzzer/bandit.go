package fuzzer

import (
	"math/rand/v2"
)

// EnergyBandit is EnergyRare's pool and mutants with the source of each
// iteration after the first SeedPopulation (random inputs, as model
// guidance's, whatever the strategy) chosen by a bandit instead of a
// fixed FreshShare: a new random input, an execution the online strategy
// builds (OnlineSeeds only) or a mutant of the pool. Each source
// is judged by its recent yield (the share of its executions that reached
// new items of the guide, an exponential moving average) per step
// executed (the executions' cost: the same system runs every source, so a
// step costs about the same whoever chose it), and drawn with a
// probability in proportion to it, none below banditFloor (probability
// matching, as EcoFuzz and MOpt share their budget among their schedules
// or operators by what each found lately). A campaign where mutants find
// new states gives them the iterations; one where fresh online executions
// do (an ordering bug a d-POS sample reaches and no mutant does) gives
// those. The yields are updated in order as results are recorded and read
// when an input is taken from the queue, so a campaign is the same
// whatever the parallelism, like the pool itself. FreshShare is unused.
const EnergyBandit = "bandit"

// The bandit's sources.
const (
	armNone   uint8 = iota // an imported input, or one of the seed population
	armRandom              // a new random input
	armOnline              // an execution the online strategy builds
	armMutant              // a mutant of the pool
	arms
)

const (
	// banditRate is the weight of an execution's result in its source's
	// moving averages: about the last 1/banditRate executions of a source
	// count.
	banditRate = 0.02
	// banditFloor is the least probability of each source available.
	banditFloor = 0.05
)

// bandit holds each source's moving averages.
type bandit struct {
	runs  [arms]int64
	yield [arms]float64 // share of executions that reached new items of the guide
	cost  [arms]float64 // steps per execution
}

// score is arm's yield per step; a source not tried yet scores best, so
// that each is tried early.
func (b *bandit) score(arm uint8) float64 {
	return b.yield[arm] / max(b.cost[arm], 1)
}

// choose draws the source of the next iteration among the available ones.
func (b *bandit) choose(r *rand.Rand, online, pool bool) uint8 {
	avail := []uint8{armRandom}
	if online {
		avail = append(avail, armOnline)
	}
	if pool {
		avail = append(avail, armMutant)
	}
	for _, a := range avail {
		if b.runs[a] == 0 {
			return a
		}
	}
	w := make([]float64, len(avail))
	total := 0.0
	for i, a := range avail {
		w[i] = b.score(a)
		total += w[i]
	}
	for i := range w {
		if total > 0 {
			w[i] /= total
		} else {
			w[i] = 1 / float64(len(w))
		}
	}
	// The floor: every source keeps banditFloor; the rest is shared in
	// proportion to the scores.
	free := 1 - banditFloor*float64(len(avail))
	x := r.Float64()
	for i, a := range avail {
		x -= banditFloor + free*w[i]
		if x < 0 {
			return a
		}
	}
	return avail[len(avail)-1]
}

// observe records the result of an execution of arm: whether it reached
// new items of the guide, and its steps.
func (b *bandit) observe(arm uint8, reached bool, steps int) {
	if arm == armNone {
		return
	}
	y := 0.0
	if reached {
		y = 1
	}
	if b.runs[arm] == 0 {
		// An optimistic start: one execution that found nothing does not
		// silence a source.
		b.yield[arm], b.cost[arm] = (1+y)/2, float64(steps)
	} else {
		b.yield[arm] += banditRate * (y - b.yield[arm])
		b.cost[arm] += banditRate * (float64(steps) - b.cost[arm])
	}
	b.runs[arm]++
}
