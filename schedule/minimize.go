package schedule

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"
)

// ErrNotReproduced is returned (wrapped) by Minimize when the input it is
// given does not show the bug in the first place.
var ErrNotReproduced = errors.New("the input does not reproduce the bug")

// MinimizeOptions bound a minimization.
type MinimizeOptions struct {
	MaxTries int           // most calls of keep (0: 5000)
	MaxTime  time.Duration // wall-clock budget (0: no limit besides ctx)
}

// MinimizeStats describe a finished (or stopped) minimization.
type MinimizeStats struct {
	Tries    int  // calls of keep (cache hits not counted)
	Complete bool // reached a fixpoint: no single simplification keeps the bug; false when the budget or ctx stopped it
	Before   int  // steps of the original input
	After    int  // steps of the result
}

const defaultMinimizeTries = 5000

// Minimize shrinks in while keep stays true: keep(x) reports whether input x
// still shows the bug (it executes x deterministically). in itself must
// satisfy keep (Minimize checks this first and returns an error wrapping
// ErrNotReproduced if not). It returns the smallest input found so far even
// when stopped early (ctx cancelled, budget used up), so a result is always a
// valid reproducer. An error from keep is returned at once (with the best
// input so far).
//
// Stopping early is not an error: Complete is false, and ctx.Err() tells a
// cancellation from a used-up budget. Only when in could not be checked at
// all (ctx already done, keep failing on it) or does not reproduce is the
// result nil.
//
// The search repeats rounds until one changes nothing:
//  1. delta debugging (ddmin) over the steps, ending 1-minimal: removing any
//     single step loses the bug;
//  2. removing a crash together with the next restart of its process, which
//     the single-step removals of ddmin cannot do when neither is
//     removable alone;
//  3. simplifying steps: fewer messages per deliver, smaller request values.
//
// Every candidate is a fresh copy (keep may keep or change what it is given;
// in is never changed), and a candidate is run at most once. For a
// deterministic keep the result and Tries are deterministic too, except
// where MaxTime or ctx cut the search short.
func Minimize(ctx context.Context, in *Input, keep func(*Input) (bool, error), opt MinimizeOptions) (*Input, MinimizeStats, error) {
	if in == nil {
		return nil, MinimizeStats{}, errors.New("minimize: the input is nil")
	}
	m := &shrinker{
		ctx:      ctx,
		keep:     keep,
		maxTries: opt.MaxTries,
		tried:    make(map[string]bool),
	}
	if m.maxTries <= 0 {
		m.maxTries = defaultMinimizeTries
	}
	if opt.MaxTime > 0 {
		m.deadline = time.Now().Add(opt.MaxTime)
	}
	stats := MinimizeStats{Before: len(in.Steps)}

	ok, err := m.try(slices.Clone(in.Steps))
	stats.Tries = m.tries
	switch {
	case errors.Is(err, errStopped):
		return nil, stats, fmt.Errorf("minimize: stopped before checking the input: %w", ctx.Err())
	case err != nil:
		return nil, stats, err
	case !ok:
		return nil, stats, fmt.Errorf("minimize: %d steps: %w", len(in.Steps), ErrNotReproduced)
	}

	for {
		changed, err := m.round()
		if err == nil && changed {
			continue
		}
		stats.Complete = err == nil
		if errors.Is(err, errStopped) {
			err = nil
		}
		stats.Tries = m.tries
		stats.After = len(m.cur)
		return &Input{Steps: m.cur}, stats, err
	}
}

// errStopped ends a search early: ctx is done or the budget used up. It
// never leaves Minimize.
var errStopped = errors.New("minimization stopped")

type shrinker struct {
	ctx      context.Context
	keep     func(*Input) (bool, error)
	maxTries int
	deadline time.Time // zero: none

	// cur is the smallest reproducer so far. It is replaced, never changed
	// in place, so candidates may share its backing array only to read it.
	cur   []Step
	tried map[string]bool // a candidate's compact JSON: what keep said
	key   []byte          // reused buffer for the keys of tried
	tries int
}

// round runs the three phases once and reports whether any shrank cur.
func (m *shrinker) round() (bool, error) {
	changed := false
	for _, phase := range []func() (bool, error){m.ddmin, m.removePairs, m.simplify} {
		c, err := phase()
		changed = changed || c
		if err != nil {
			return changed, err
		}
	}
	return changed, nil
}

// try reports whether the candidate steps keep the bug, from the cache when
// they ran before; when they do, they become cur. It returns errStopped
// instead of running keep once ctx is done or the budget is used up.
func (m *shrinker) try(steps []Step) (bool, error) {
	m.key = (&Input{Steps: steps}).AppendJSON(m.key[:0], false)
	if ok, seen := m.tried[string(m.key)]; seen {
		if ok {
			m.cur = steps
		}
		return ok, nil
	}
	if m.ctx.Err() != nil || m.tries >= m.maxTries {
		return false, errStopped
	}
	// The first try confirms the input; exempting it from the time budget
	// means a minimization that runs at all returns a checked reproducer.
	if m.tries > 0 && !m.deadline.IsZero() && !time.Now().Before(m.deadline) {
		return false, errStopped
	}
	m.tries++
	key := string(m.key)
	ok, err := m.keep(&Input{Steps: slices.Clone(steps)})
	if err != nil {
		return false, fmt.Errorf("minimize: try %d (%d steps): %w", m.tries, len(steps), err)
	}
	m.tried[key] = ok
	if ok {
		m.cur = steps
	}
	return ok, nil
}

// ddmin is Zeller's delta debugging, complements first: with cur cut into n
// chunks, it drops one chunk at a time and, failing that, keeps a single
// chunk; failing both, it doubles n until the chunks are single steps.
// Success with a complement goes on at n-1 from the chunk that was dropped
// (the chunks before it were just tried), with a subset at n = 2.
func (m *shrinker) ddmin() (bool, error) {
	changed := false
	n, start := 2, 0
	for len(m.cur) > 0 {
		l := len(m.cur)
		n = min(n, l)
		bound := func(i int) int { return i * l / n }

		found := false
		for k := range n {
			i := (start + k) % n
			cand := make([]Step, 0, l-(bound(i+1)-bound(i)))
			cand = append(append(cand, m.cur[:bound(i)]...), m.cur[bound(i+1):]...)
			ok, err := m.try(cand)
			if err != nil {
				return changed, err
			}
			if ok {
				found = true
				n, start = max(n-1, 2), i
				break
			}
		}
		// With two chunks a subset is the other chunk's complement, tried above.
		for i := 0; !found && n > 2 && i < n; i++ {
			ok, err := m.try(slices.Clone(m.cur[bound(i):bound(i+1)]))
			if err != nil {
				return changed, err
			}
			if ok {
				found = true
				n, start = 2, 0
			}
		}
		if found {
			changed = true
			continue
		}
		if n >= l {
			break
		}
		n, start = min(2*n, l), 0
	}
	return changed, nil
}

// removePairs drops a crash together with the next restart of the same
// process. After ddmin neither can be dropped alone, yet a bug that needs
// neither often does not survive a crash without its restart (the process
// stays down) nor a restart without its crash (it is skipped, and the steps
// after it see a different system).
func (m *shrinker) removePairs() (bool, error) {
	changed := false
	for i := 0; i < len(m.cur); i++ {
		if m.cur[i].Action != Crash {
			continue
		}
		j := i + 1
		for j < len(m.cur) && (m.cur[j].Action != Restart || m.cur[j].Process != m.cur[i].Process) {
			j++
		}
		if j == len(m.cur) {
			continue
		}
		cand := make([]Step, 0, len(m.cur)-2)
		cand = append(append(append(cand, m.cur[:i]...), m.cur[i+1:j]...), m.cur[j+1:]...)
		ok, err := m.try(cand)
		if err != nil {
			return changed, err
		}
		if ok {
			changed = true
			i-- // step i is now the one after the crash
		}
	}
	return changed, nil
}

// simplify lowers the numbers of each step in turn: the messages of a
// deliver, the value of a request, the parameters of the newer actions.
func (m *shrinker) simplify() (bool, error) {
	changed := false
	for i := range m.cur {
		var c bool
		var err error
		switch m.cur[i].Action {
		case Deliver:
			c, err = m.lowerMessages(i)
		case Request:
			c, err = m.lowerValue(i)
		default:
			c, err = m.plainerParams(i)
		}
		changed = changed || c
		if err != nil {
			return changed, err
		}
	}
	return changed, nil
}

// plainerParams tries simpler parameters for step i, one at a time: the
// first pending message, a single tick, a crash at once, one change of a
// joint conf-change.
func (m *shrinker) plainerParams(i int) (bool, error) {
	s := m.cur[i]
	var tries []Step
	if s.K > 1 {
		t := s
		t.K = 1
		tries = append(tries, t)
	}
	if s.N > 1 {
		t := s
		t.N = 1
		tries = append(tries, t)
	}
	if s.Point != "" {
		t := s
		t.Point = ""
		tries = append(tries, t)
	}
	if c, err := ParseConf(s.Conf); err == nil && len(c.Ops) > 1 {
		for _, o := range c.Ops {
			t := s
			t.Conf = o.Op + " " + strconv.Itoa(o.Process)
			tries = append(tries, t)
		}
	}
	for _, t := range tries {
		ok, err := m.try(m.withStep(i, t))
		if ok || err != nil {
			return ok, err
		}
	}
	return false, nil
}

// withStep returns a copy of cur with step i replaced by s.
func (m *shrinker) withStep(i int, s Step) []Step {
	c := slices.Clone(m.cur)
	c[i] = s
	return c
}

// lowerMessages tries a single message for deliver step i, then searches
// between 1 and its count for the fewest that keep the bug (assuming that
// more messages never lose a bug fewer show, as usual).
func (m *shrinker) lowerMessages(i int) (bool, error) {
	s := m.cur[i]
	if s.Messages <= 1 {
		return false, nil
	}
	lo, hi := 0, s.Messages // lo: most known not to keep the bug; hi: fewest known to
	changed := false
	for first := true; hi-lo > 1; first = false {
		s.Messages = lo + (hi-lo)/2
		if first {
			s.Messages = 1
		}
		ok, err := m.try(m.withStep(i, s))
		if err != nil {
			return changed, err
		}
		if ok {
			hi, changed = s.Messages, true
		} else {
			lo = s.Messages
		}
	}
	return changed, nil
}

// lowerValue tries the smallest positive value that no other request of cur
// uses for request step i. Requests stay distinct, as generated inputs
// number them 1, 2, ..., because systems (and people reading a trace) may
// tell requests apart by their values.
func (m *shrinker) lowerValue(i int) (bool, error) {
	used := make(map[int]bool)
	for j, s := range m.cur {
		if j != i && s.Action == Request {
			used[s.Value] = true
		}
	}
	v := 1
	for used[v] {
		v++
	}
	s := m.cur[i]
	if v >= s.Value {
		return false, nil
	}
	s.Value = v
	return m.try(m.withStep(i, s))
}
