package sim

import (
	"sync"

	"github.com/modelfuzz/modelfuzz/tlc/value"
)

type transition struct {
	next  []value.Value // nil: not enabled
	n     int           // successors the action has (the first is next)
	fp    uint64        // next's fingerprint
	info  info          // what is known of next, when known
	known bool
}

// cache memoizes transitions (state, action, parameters) -> successor and
// state facts, within a bound: two generations, the older dropped when the
// newer fills up, so recently used entries survive.
type cache struct {
	mu       sync.Mutex
	limit    int
	cur, old map[uint64]transition
	infoCur  map[uint64]info
	infoOld  map[uint64]info
	// invariants' values by the variables they read (Simulator.invariant)
	invCur, invOld map[uint64]bool
}

func newCache(limit int) *cache {
	return &cache{limit: limit, cur: map[uint64]transition{}, infoCur: map[uint64]info{}, invCur: map[uint64]bool{}}
}

func (c *cache) transition(k uint64) (transition, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t, ok := c.cur[k]; ok {
		return t, true
	}
	if t, ok := c.old[k]; ok {
		c.cur[k] = t
		return t, true
	}
	return transition{}, false
}

func (c *cache) putTransition(k uint64, t transition) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.cur) >= c.limit/2 {
		c.old, c.cur = c.cur, make(map[uint64]transition, c.limit/2)
	}
	c.cur[k] = t
}

func (c *cache) info(fp uint64) (info, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if in, ok := c.infoCur[fp]; ok {
		return in, true
	}
	if in, ok := c.infoOld[fp]; ok {
		c.infoCur[fp] = in
		return in, true
	}
	return info{}, false
}

func (c *cache) putInfo(fp uint64, in info) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.infoCur) >= c.limit/2 {
		c.infoOld, c.infoCur = c.infoCur, make(map[uint64]info, c.limit/2)
	}
	c.infoCur[fp] = in
}

func (c *cache) invariant(k uint64) (ok, found bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ok, found = c.invCur[k]; found {
		return ok, true
	}
	if ok, found = c.invOld[k]; found {
		c.invCur[k] = ok
	}
	return ok, found
}

func (c *cache) putInvariant(k uint64, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.invCur) >= c.limit/2 {
		c.invOld, c.invCur = c.invCur, make(map[uint64]bool, c.limit/2)
	}
	c.invCur[k] = ok
}
