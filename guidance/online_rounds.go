package guidance

import (
	"math/rand/v2"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// rounds samples k-periodic uniform lossy-synchronous executions with at
// most d isolated processes (Algorithm 1 of the communication-closure
// paper). Processes move in lock-step rounds: a round receives every
// message pending when it began (sent in the round before), in process
// order, and the messages sent meanwhile wait for the next round; a
// message to or from a process isolated in the round is dropped, so it is
// received in its round or never. The d isolations are spread over the
// r/k phases at random; at a phase's first round each of its isolated
// processes draws the round of the phase from which it is isolated, to the
// end of the phase: every k rounds the network heals. After r rounds no
// process is isolated any more. At the end of a round the harness may
// inject one timer, client request or read, leadership transfer,
// configuration change or tick step (with probability 1/2; its messages
// belong to the next round); crashes, the harness's drops, duplicates and
// partitions are not used (NewOnline leaves them out): isolation is how
// this strategy loses messages.
type rounds struct {
	p     OnlineParams
	procs int
	r     *rand.Rand

	round    int          // the current round (0-based); -1 before the first
	members  map[int]bool // the events of the current round not run yet
	sentIn   map[int]int  // event id -> the round in which it was first enabled
	injected bool         // the round's harness event was decided
	perPhase []int        // isolations of each phase
	firstIso []int        // by process: the round of the current phase it is isolated from, -1 none
	isolated uint32       // the processes isolated in the current round

	isolations, dropped, delivered, injectedN int
}

func newRounds(p OnlineParams, procs int) *rounds {
	return &rounds{p: p, procs: procs}
}

func (c *rounds) Start(r *rand.Rand) {
	c.r = r
	c.round = -1
	c.members = map[int]bool{}
	c.sentIn = map[int]int{}
	c.firstIso = make([]int, c.procs)
	c.isolated = 0
	c.isolations, c.dropped, c.delivered, c.injectedN = 0, 0, 0, 0
	phases := (c.p.Rounds + c.p.Period - 1) / c.p.Period
	c.perPhase = make([]int, phases)
	// Distribute d isolations over the phases, at most every process in
	// one phase (line 1).
	for k := 0; k < c.p.Isolations && k < phases*c.procs; k++ {
		for {
			ph := r.IntN(phases)
			if c.perPhase[ph] < c.procs {
				c.perPhase[ph]++
				break
			}
		}
	}
}

// Round is the current round (for tests).
func (c *rounds) Round() int { return c.round }

// next starts the next round: its members are the system's events enabled
// now, and the isolated processes those its phase's plan says.
func (c *rounds) next(evs []schedule.Enabled) {
	c.round++
	c.injected = false
	clear(c.members)
	for i := range evs {
		if evs[i].Kind == schedule.KindRecv || evs[i].Kind == schedule.KindStart || evs[i].Kind == schedule.KindPersist {
			c.members[evs[i].ID] = true
		}
	}
	c.isolated = 0
	if c.round >= c.p.Rounds {
		return
	}
	phase, in := c.round/c.p.Period, c.round%c.p.Period
	if in == 0 {
		// Lines 5-7: the phase's isolated processes and the round each
		// is isolated from.
		for q := range c.firstIso {
			c.firstIso[q] = -1
		}
		for _, q := range c.r.Perm(c.procs)[:c.perPhase[phase]] {
			c.firstIso[q] = c.r.IntN(c.p.Period)
		}
	}
	for q, f := range c.firstIso {
		if f >= 0 && f <= in {
			c.isolated |= 1 << q
			if f == in {
				c.isolations++
			}
		}
	}
}

func (c *rounds) isIsolated(q int) bool { return q >= 0 && c.isolated&(1<<q) != 0 }

func (c *rounds) Choose(evs []schedule.Enabled) (int, bool) {
	for i := range evs {
		if _, ok := c.sentIn[evs[i].ID]; !ok {
			c.sentIn[evs[i].ID] = c.round
		}
	}
	for empty := 0; ; {
		if c.round >= 0 {
			for i := range evs {
				e := &evs[i]
				if !c.members[e.ID] {
					continue
				}
				if e.Kind == schedule.KindRecv && (c.isIsolated(e.Process) || c.isIsolated(e.From)) {
					c.dropped++
					return i, true
				}
				c.delivered++
				return i, false
			}
			if !c.injected {
				c.injected = true
				var ext []int
				for i := range evs {
					switch evs[i].Kind {
					case schedule.KindTimeout, schedule.KindRequest, schedule.KindRead,
						schedule.KindTransfer, schedule.KindConfChange, schedule.KindTick, schedule.KindHold:
						ext = append(ext, i)
					}
				}
				// A quiet system gets its harness event after a few empty rounds.
				if len(ext) > 0 && (c.r.IntN(2) == 0 || empty >= 8) {
					c.injectedN++
					return ext[c.r.IntN(len(ext))], false
				}
			}
		}
		c.next(evs)
		if len(c.members) == 0 {
			empty++
		} else {
			empty = 0
		}
		if empty > 64 {
			// Nothing but the harness's crashes or restarts: run one.
			return 0, false
		}
	}
}

func (c *rounds) Executed(e schedule.Enabled) {
	delete(c.members, e.ID)
}

func (c *rounds) Finish() map[string]int {
	return map[string]int{"rounds": c.round + 1, "isolations": c.isolations, "dropped": c.dropped,
		"delivered": c.delivered, "harness events": c.injectedN}
}
