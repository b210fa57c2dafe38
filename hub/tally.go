package hub

import (
	"encoding/json"
	"maps"
	"sync"
	"time"
)

// Point is the campaign's union coverage at a time.
type Point struct {
	Time     time.Time
	Coverage map[string]int
}

// tally is the union of the workers' coverage, read from the stream as
// it grows.
type tally struct {
	mu     sync.Mutex
	seq    uint64 // the last message counted
	sets   map[string]map[uint64]bool
	series []Point
	first  map[string]int // distinct items each worker reached first, as the hub saw it
}

func newTally() *tally {
	return &tally{sets: map[string]map[uint64]bool{}, first: map[string]int{}}
}

// Coverage is the union coverage of every worker (items of each measure)
// and its course over time (a point a coverage message that added items),
// and the distinct items each worker contributed; every call reads what
// the stream gained since the last.
func (c *Client) Coverage() (now map[string]int, series []Point, byWorker map[string]int, err error) {
	t := c.tall
	t.mu.Lock()
	defer t.mu.Unlock()
	err = c.ScanFrom("cov", t.seq, func(data []byte, at time.Time, seq uint64) error {
		t.seq = seq
		var cv Coverage
		if json.Unmarshal(data, &cv) != nil {
			return nil
		}
		added := false
		for _, ci := range cv.Coverage {
			set := t.sets[ci.Measure]
			if set == nil {
				set = map[uint64]bool{}
				t.sets[ci.Measure] = set
			}
			for _, x := range ci.Items {
				if !set[x] {
					set[x] = true
					added = true
					t.first[cv.Worker]++
				}
			}
		}
		if added {
			p := Point{Time: at, Coverage: map[string]int{}}
			for m, s := range t.sets {
				p.Coverage[m] = len(s)
			}
			t.series = append(t.series, p)
		}
		return nil
	})
	now = map[string]int{}
	for m, s := range t.sets {
		now[m] = len(s)
	}
	return now, t.series, maps.Clone(t.first), err
}
