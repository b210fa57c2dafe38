package guidance

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// GenomeSuffix ends the name of a model-seeded strategy whose inputs are
// all executions of its online strategy, each built from a genome: the
// online strategy's own choices, written down (Genome). Model guidance
// keeps a genome whose execution reached new abstract states and mutates
// it by changing one choice (MutateGenome); the mutant is executed online
// again, so every execution of the campaign, mutants included, is one the
// online strategy could have made, reordering everywhere, where a mutant
// of the recorded steps keeps the parent's orderings only up to the
// mutated step and orders blindly after it. Only the PCT family (pctcp,
// dpos, tapct, pct) has such choices: model-pctcp-genome, model-dpos-genome.
const GenomeSuffix = "-genome"

// IsModelGenome reports whether strategy is model guidance over the
// genomes of its online strategy (GenomeSuffix).
func IsModelGenome(strategy string) bool {
	return IsModelSeeded(strategy) && strings.HasSuffix(strategy, GenomeSuffix)
}

// Genome is every choice one execution of a PCT-family strategy makes, so
// that the execution can be made again and changed one choice at a time:
// the d-1 change points, the priority of every chain, the random stream
// of the harness (which process a request goes to, which message a drop
// takes, what conf-change is on offer), and two choices the strategy does
// not make by itself: harness events forced at a step (fault points) and
// fresh random draws from a step on (reseeds). A fresh genome (Seed only)
// makes an execution of the online strategy as it is; running a genome
// writes down the choices the execution drew (Changes, Keys), so that the
// genome a run returns makes the same execution again.
type Genome struct {
	// Seed seeds the harness's random draws and the keys and change
	// points the genome does not give.
	Seed uint64 `json:"seed"`
	// Changes are the labels of the change points, slot by slot (the
	// first is the lowest priority a chain can drop to).
	Changes []int `json:"changes,omitempty"`
	// Keys are the chains' priority keys in the order the chains were
	// created (higher runs first); a chain past them draws its key.
	Keys []uint32 `json:"keys,omitempty"`
	// Faults are harness events forced at a step, in step order.
	Faults []FaultPoint `json:"faults,omitempty"`
	// Reseeds start fresh random draws at a step, in step order.
	Reseeds []Reseed `json:"reseeds,omitempty"`

	// What the run that wrote it saw, for mutation (not choices): the
	// step each chain of Keys was created in, the steps of the execution
	// and the kinds of harness event it was offered.
	Born  []int    `json:"born,omitempty"`
	Steps int      `json:"steps,omitempty"`
	Kinds []string `json:"kinds,omitempty"`
}

// FaultPoint forces a harness event: at step Step, if the harness offers
// an event of kind Kind at Process (-1 for a partition's heal), it runs
// instead of the strategy's choice. The harness's quotas still hold: an
// event it does not offer (a crash past the quota) is not forced.
type FaultPoint struct {
	Step    int    `json:"step"`
	Kind    string `json:"kind"`
	Process int    `json:"process"`
}

// Reseed makes every random draw from step Step on (the harness's and the
// keys of the chains created from then on) from a new stream.
type Reseed struct {
	Step int    `json:"step"`
	Seed uint64 `json:"seed"`
}

// Salts of the genome's two random streams.
const (
	genomeKeySalt     = 0x6b657973 // chain keys and change points
	genomeHarnessSalt = 0x6861726e // the harness's draws
)

// switchSource is a random source whose stream can be replaced mid-run.
type switchSource struct{ pcg *rand.PCG }

func (s *switchSource) Uint64() uint64 { return s.pcg.Uint64() }

// genomeChooser runs a PCT-family chooser with its choices from a genome.
type genomeChooser struct {
	p       *pct
	g       *Genome // read-only
	out     *Genome // the choices made, written as the run goes
	step    int     // Choose calls so far: the step being chosen
	keys    *rand.Rand
	keySrc  *switchSource
	harness *switchSource // the driver's stream (OnlineRunFrom's r)
	reseed  int           // the next reseed of g to apply
	kinds   map[string]bool
}

func newGenomeChooser(p *pct, g *Genome) (*genomeChooser, *rand.Rand) {
	c := &genomeChooser{p: p, g: g, kinds: map[string]bool{},
		keySrc:  &switchSource{rand.NewPCG(g.Seed, genomeKeySalt)},
		harness: &switchSource{rand.NewPCG(g.Seed, genomeHarnessSalt)}}
	c.keys = rand.New(c.keySrc)
	c.out = &Genome{Seed: g.Seed, Faults: g.Faults, Reseeds: g.Reseeds}
	p.key = func() uint32 {
		i := len(c.out.Keys)
		k := uint32(0)
		if i < len(c.g.Keys) {
			k = c.g.Keys[i]
		} else {
			k = c.keys.Uint32()
		}
		c.out.Keys = append(c.out.Keys, k)
		c.out.Born = append(c.out.Born, c.step)
		return k
	}
	return c, rand.New(c.harness)
}

func (c *genomeChooser) Start(*rand.Rand) {
	c.p.Start(c.keys)
	if len(c.g.Changes) > 0 {
		clear(c.p.changeAt)
		for slot, label := range c.g.Changes {
			if slot < c.p.d-1 {
				c.p.changeAt[label] = slot
			}
		}
	}
	c.out.Changes = make([]int, c.p.d-1)
	n := 0
	for label, slot := range c.p.changeAt {
		c.out.Changes[slot] = label
		n++
	}
	c.out.Changes = c.out.Changes[:n]
}

func (c *genomeChooser) Choose(evs []schedule.Enabled) (int, bool) {
	for c.reseed < len(c.g.Reseeds) && c.g.Reseeds[c.reseed].Step <= c.step {
		s := c.g.Reseeds[c.reseed].Seed
		c.keySrc.pcg = rand.NewPCG(s, genomeKeySalt)
		c.harness.pcg = rand.NewPCG(s, genomeHarnessSalt)
		c.reseed++
	}
	for i := range evs {
		if evs[i].Kind != schedule.KindRecv {
			c.kinds[evs[i].Kind] = true
		}
	}
	step := c.step
	c.step++
	// The strategy sees every event, so that its chains are the same
	// whether or not a fault point takes the step.
	i, drop := c.p.Choose(evs)
	for _, f := range c.g.Faults {
		if f.Step != step {
			continue
		}
		for k := range evs {
			if evs[k].Kind == f.Kind && evs[k].Process == f.Process {
				return k, false
			}
		}
	}
	return i, drop
}

func (c *genomeChooser) Executed(e schedule.Enabled) { c.p.Executed(e) }

func (c *genomeChooser) Finish() map[string]int {
	c.out.Steps = c.step
	c.out.Kinds = c.out.Kinds[:0]
	for k := range c.kinds {
		c.out.Kinds = append(c.out.Kinds, k)
	}
	slices.Sort(c.out.Kinds)
	return c.p.Finish()
}

// FreshGenome draws the genome of a new execution: a seed, every choice
// left to the run.
func (o *Online) FreshGenome(r *rand.Rand) []byte {
	b, _ := json.Marshal(&Genome{Seed: r.Uint64()})
	return b
}

// RunGenome builds and executes one input online with the choices of the
// genome g, and returns the genome of the choices it made (the same
// execution again when run); it implements fuzzer.Genomes.
func (o *Online) RunGenome(sys schedule.System, g []byte) (*schedule.Input, *schedule.Execution, []byte, error) {
	var gen Genome
	if err := json.Unmarshal(g, &gen); err != nil {
		return nil, nil, nil, fmt.Errorf("a genome of %s: %v", o.Strategy, err)
	}
	p, ok := o.Chooser().(*pct)
	if !ok {
		return nil, nil, nil, fmt.Errorf("%s: its online strategy has no genome (only the PCT family: pct, pctcp, tapct, dpos)", o.Strategy)
	}
	st, ok := sys.(schedule.Stepper)
	if !ok {
		return nil, nil, nil, fmt.Errorf("system %s cannot be scheduled online", sys.Spec().Name)
	}
	ch, r := newGenomeChooser(p, &gen)
	in, ex, q := schedule.OnlineRun(st, ch, o.Harness, r)
	if err := schedule.StepperErr(st); err != nil {
		return nil, nil, nil, err
	}
	o.count(q)
	out, err := json.Marshal(ch.out)
	if err != nil {
		return nil, nil, nil, err
	}
	return in, ex, out, nil
}

// The mutations of a genome, each one choice.
const (
	MutateChange   = "move-change-point"
	MutateSwap     = "swap-priorities"
	MutateFault    = "move-fault-point"
	MutateAddFault = "add-fault-point"
	MutateReseed   = "reseed"
)

// genomeFaultsMax is the most fault points a genome holds.
const genomeFaultsMax = 16

// MutateGenome returns a mutant of the genome g (one a run wrote) that
// differs in one choice, and which: a change point moved (to a label
// near it, or anywhere), two chains' priorities swapped, a fault point
// moved or removed, a fault point added (a kind of harness event the
// run was offered, at a process and a step of the run), or the random
// draws made afresh from a step on. A choice that cannot be made (no
// second chain to swap with) is replaced by a reseed.
func (o *Online) MutateGenome(g []byte, r *rand.Rand) ([]byte, string, error) {
	var gen Genome
	if err := json.Unmarshal(g, &gen); err != nil {
		return nil, "", fmt.Errorf("a genome of %s: %v", o.Strategy, err)
	}
	op := mutateGenome(&gen, r, o.labels(), o.procs)
	b, err := json.Marshal(&gen)
	return b, op, err
}

// labels is how many labelled events the change points are drawn among.
func (o *Online) labels() int {
	if p, ok := o.Chooser().(*pct); ok {
		return max(p.n, 1)
	}
	return 1
}

func mutateGenome(g *Genome, r *rand.Rand, labels, procs int) string {
	steps := max(g.Steps, 1)
	ops := []string{MutateChange, MutateSwap, MutateFault, MutateAddFault, MutateReseed}
	op := ops[r.IntN(len(ops))]
	switch {
	case op == MutateChange && len(g.Changes) == 0,
		op == MutateSwap && len(g.Keys) < 2,
		op == MutateFault && len(g.Faults) == 0,
		op == MutateAddFault && (len(g.Kinds) == 0 || len(g.Faults) >= genomeFaultsMax):
		op = MutateReseed
	}
	switch op {
	case MutateChange:
		i := r.IntN(len(g.Changes))
		old := g.Changes[i]
		label := 1 + r.IntN(labels)
		if r.IntN(2) == 0 {
			// Near: by up to an eighth of the labels either way.
			w := max(labels/8, 1)
			label = min(max(old+r.IntN(2*w+1)-w, 1), labels)
		}
		if label == old || slices.Contains(g.Changes, label) {
			label = 1 + (old+r.IntN(max(labels-1, 1)))%labels
		}
		if !slices.Contains(g.Changes, label) {
			g.Changes[i] = label
		}
	case MutateSwap:
		i := r.IntN(len(g.Keys))
		j := r.IntN(len(g.Keys) - 1)
		if j >= i {
			j++
		}
		g.Keys[i], g.Keys[j] = g.Keys[j], g.Keys[i]
	case MutateFault:
		i := r.IntN(len(g.Faults))
		if r.IntN(4) == 0 {
			g.Faults = slices.Delete(slices.Clone(g.Faults), i, i+1)
			break
		}
		f := slices.Clone(g.Faults)
		f[i].Step = max(f[i].Step+r.IntN(41)-20, 0)
		g.Faults = sortFaults(f)
	case MutateAddFault:
		kind := g.Kinds[r.IntN(len(g.Kinds))]
		p := r.IntN(procs)
		if kind == schedule.KindHeal || kind == schedule.KindPartition {
			p = -1
		}
		g.Faults = sortFaults(append(slices.Clone(g.Faults), FaultPoint{Step: r.IntN(steps), Kind: kind, Process: p}))
	case MutateReseed:
		at := r.IntN(steps)
		// The chains created from the step on draw their keys afresh, as
		// does the harness; the reseeds after it are superseded.
		keep := 0
		for keep < len(g.Keys) && keep < len(g.Born) && g.Born[keep] < at {
			keep++
		}
		g.Keys = g.Keys[:keep]
		rs := slices.DeleteFunc(slices.Clone(g.Reseeds), func(x Reseed) bool { return x.Step >= at })
		g.Reseeds = append(rs, Reseed{Step: at, Seed: r.Uint64()})
	}
	g.Born = nil // the run writes them again
	return op
}

func sortFaults(f []FaultPoint) []FaultPoint {
	slices.SortStableFunc(f, func(a, b FaultPoint) int { return a.Step - b.Step })
	return f
}
