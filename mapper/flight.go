package mapper

import "sort"

// flight follows families of messages in flight (a ReadIndex request and
// the network's copies of it; a leader's heartbeat round, the answers and
// the copies): each message belongs to a family and sits in one process's
// inbox. A copy joins the family of the message it copies, in the same
// inbox; a message ends when it is received, dropped, or lost with its
// holder's inbox in a crash.
type flight struct {
	fam    map[int]int // message id → its family
	holder map[int]int // message id → the process whose inbox holds it
	count  map[int]int // family → its messages in flight
}

func newFlight() flight {
	return flight{fam: map[int]int{}, holder: map[int]int{}, count: map[int]int{}}
}

// add puts message msg of family fam in holder's inbox.
func (f *flight) add(msg, fam, holder int) {
	f.fam[msg], f.holder[msg] = fam, holder
	f.count[fam]++
}

// copy adds msg, a copy of message of, to of's family and inbox; ok is
// false when of is not a message in flight this flight follows.
func (f *flight) copy(of, msg int) (fam int, ok bool) {
	fam, ok = f.fam[of]
	if ok {
		f.add(msg, fam, f.holder[of])
	}
	return fam, ok
}

// end ends message msg; ok is false when it is not a message in flight
// this flight follows.
func (f *flight) end(msg int) (fam int, ok bool) {
	fam, ok = f.fam[msg]
	if !ok {
		return 0, false
	}
	delete(f.fam, msg)
	delete(f.holder, msg)
	if f.count[fam]--; f.count[fam] == 0 {
		delete(f.count, fam)
	}
	return fam, true
}

// inFlight is how many messages of family fam are on their way.
func (f *flight) inFlight(fam int) int { return f.count[fam] }

// held returns the messages in p's inbox, in the order they were sent.
func (f *flight) held(p int) []int {
	var out []int
	for msg, h := range f.holder {
		if h == p {
			out = append(out, msg)
		}
	}
	sort.Ints(out)
	return out
}
