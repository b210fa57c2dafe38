package guidance

import (
	"math/rand/v2"
	"slices"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// How the PCT family partitions events into chains.
type chainMode int

const (
	// chainsByProcess: a chain per process, PCT's threads (Burckhardt et
	// al.): the events of one process are ordered by its execution. The
	// network's faults (drop, duplicate, partition, heal) are a thread of
	// their own: in the receiver's, a drop would always wait for the
	// receipt of its message.
	chainsByProcess chainMode = iota
	// chainsByCause: PCTCP's and taPCT's online chain partitioning of the
	// causal order (an event follows the one during which its message was
	// sent), first fit: an event joins the first chain whose last event
	// happens before it, else starts a chain.
	chainsByCause
	// chainsPerEvent: every event is its own chain (d-POS).
	chainsPerEvent
)

type pctEvent struct {
	id, proc, cause int
	label           int // its number among the labelled (racy) events, 0 if not labelled
	chain           *chain
	done            bool
}

type chain struct {
	evs  []*pctEvent
	head int    // evs[:head] are done
	key  uint32 // its priority key, when the keys come from a genome (pct.key)
}

// pct is Algorithm 1 of the taPCT paper, which is PCT (every event
// labelled, n the events), taPCT (only racy events labelled, n the racy
// events) or d-POS (taPCT with a chain per event) by its parameters.
// chains holds the chains in ascending priority; its first d-1 slots are
// the priorities below every initial one, filled at the d-1 change
// points: when the next event of the highest chain carries the label of
// the i-th change point, its chain moves to slot i.
type pct struct {
	d, n  int
	racy  map[string]bool // the signatures labelled; nil: every event
	mode  chainMode
	r     *rand.Rand
	evs   map[int]*pctEvent
	order []*chain // creation order, for first fit
	// chains in ascending priority; nil entries are empty slots.
	chains   []*chain
	byProc   map[int]*chain
	changeAt map[int]int // label -> slot
	labels   int
	at       map[int]int // pending event id -> index in evs
	maxConc  int
	changes  int
	// key, when set, gives each new chain its priority key (a genome's,
	// genome.go): the chains above the reserved slots are ordered by key,
	// a new one after those of an equal key. Keys drawn uniformly give the
	// chains the same random order as a random insertion does.
	key func() uint32
}

func newPCT(d, n int, racy map[string]bool, mode chainMode) *pct {
	return &pct{d: d, n: n, racy: racy, mode: mode}
}

func (p *pct) Start(r *rand.Rand) {
	p.r = r
	p.evs = map[int]*pctEvent{}
	p.order = p.order[:0]
	p.chains = make([]*chain, p.d-1)
	p.byProc = map[int]*chain{}
	p.changeAt = map[int]int{}
	p.labels, p.maxConc, p.changes = 0, 0, 0
	p.at = map[int]int{}
	// d-1 distinct change points among the labels 1..n.
	k := min(p.d-1, p.n)
	for slot, x := range r.Perm(p.n)[:k] {
		p.changeAt[x+1] = slot
	}
}

func (p *pct) add(e *schedule.Enabled) {
	ev := &pctEvent{id: e.ID, proc: e.Process, cause: e.Cause}
	if p.racy == nil || p.racy[e.Signature()] {
		p.labels++
		ev.label = p.labels
	}
	p.evs[e.ID] = ev
	var c *chain
	thread := e.Process
	switch e.Kind {
	case schedule.KindDrop, schedule.KindDuplicate, schedule.KindPartition, schedule.KindHeal:
		thread = -1
	}
	switch p.mode {
	case chainsByProcess:
		c = p.byProc[thread]
	case chainsByCause:
		if ce := p.evs[e.Cause]; ce != nil && ce.chain.evs[len(ce.chain.evs)-1] == ce {
			c = ce.chain
			break
		}
		for _, oc := range p.order {
			if p.before(oc.evs[len(oc.evs)-1], ev) {
				c = oc
				break
			}
		}
	}
	if c == nil {
		c = &chain{}
		p.order = append(p.order, c)
		// A new chain gets a random priority above the d-1 reserved slots.
		var pos int
		if p.key != nil {
			c.key = p.key()
			pos = len(p.chains)
			for i := p.d - 1; i < len(p.chains); i++ {
				if o := p.chains[i]; o != nil && o.key > c.key {
					pos = i
					break
				}
			}
		} else {
			pos = p.d - 1 + p.r.IntN(len(p.chains)-(p.d-1)+1)
		}
		p.chains = slices.Insert(p.chains, pos, c)
		if p.mode == chainsByProcess {
			p.byProc[thread] = c
		}
	}
	c.evs = append(c.evs, ev)
	ev.chain = c
}

// before reports whether a happens before b in the causal order: a is b's
// cause, or its cause's, and so on.
func (p *pct) before(a, b *pctEvent) bool {
	for x := p.evs[b.cause]; x != nil; x = p.evs[x.cause] {
		if x == a {
			return true
		}
		if x.cause == 0 {
			break
		}
	}
	return false
}

func (p *pct) Choose(evs []schedule.Enabled) (int, bool) {
	clear(p.at)
	for i := range evs {
		p.at[evs[i].ID] = i
		if p.evs[evs[i].ID] == nil {
			p.add(&evs[i])
		}
	}
	p.maxConc = max(p.maxConc, len(evs))
	for {
		ev := p.highest()
		if ev == nil {
			return 0, false // unreachable: every enabled event is in a chain
		}
		if slot, ok := p.changeAt[ev.label]; ok && ev.label != 0 {
			// A change point: the chain drops below every initial
			// priority, to the slot of this change point.
			delete(p.changeAt, ev.label)
			i := slices.Index(p.chains, ev.chain)
			p.chains[i] = nil
			p.chains[slot] = ev.chain
			p.changes++
			continue
		}
		return p.at[ev.id], false
	}
}

// highest returns the next enabled event of the highest-priority chain
// that has one.
func (p *pct) highest() *pctEvent {
	for i := len(p.chains) - 1; i >= 0; i-- {
		c := p.chains[i]
		if c == nil {
			continue
		}
		for c.head < len(c.evs) && c.evs[c.head].done {
			c.head++
		}
		for _, ev := range c.evs[c.head:] {
			if _, ok := p.at[ev.id]; ok && !ev.done {
				return ev
			}
		}
	}
	return nil
}

func (p *pct) Executed(e schedule.Enabled) {
	if ev := p.evs[e.ID]; ev != nil {
		ev.done = true
	}
	if e.Kind == schedule.KindDrop {
		// The message is gone: its receipt will not run.
		if ev := p.evs[e.Target]; ev != nil {
			ev.done = true
		}
	}
}

func (p *pct) Finish() map[string]int {
	return map[string]int{"events": len(p.evs), "labelled events": p.labels, "chains": len(p.order),
		"max concurrent": p.maxConc, "priority changes": p.changes}
}

// pos is POS (Yuan et al., as the taPCT paper describes it): every event
// gets a random priority, the highest enabled one runs, and the events
// dependent on it (at the same process) draw new priorities.
type pos struct {
	r       *rand.Rand
	prio    map[int]float64
	pending []schedule.Enabled
	created int
	maxConc int
	redraws int
}

func (p *pos) Start(r *rand.Rand) {
	p.r, p.prio, p.created, p.maxConc, p.redraws = r, map[int]float64{}, 0, 0, 0
}

func (p *pos) Choose(evs []schedule.Enabled) (int, bool) {
	best := 0
	for i := range evs {
		x, ok := p.prio[evs[i].ID]
		if !ok {
			x = p.r.Float64()
			p.prio[evs[i].ID] = x
			p.created++
		}
		if x > p.prio[evs[best].ID] {
			best = i
		}
	}
	p.maxConc = max(p.maxConc, len(evs))
	p.pending = append(p.pending[:0], evs...)
	return best, false
}

func (p *pos) Executed(e schedule.Enabled) {
	delete(p.prio, e.ID)
	for i := range p.pending {
		if q := &p.pending[i]; q.ID != e.ID && q.Process == e.Process {
			p.prio[q.ID] = p.r.Float64()
			p.redraws++
		}
	}
}

func (p *pos) Finish() map[string]int {
	return map[string]int{"events": p.created, "max concurrent": p.maxConc, "priority redraws": p.redraws}
}
