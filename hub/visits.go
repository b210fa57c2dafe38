package hub

import (
	"encoding/binary"

	"github.com/nats-io/nats.go"

	"github.com/modelfuzz/modelfuzz/fuzzer"
)

// Visits: how often each worker's executions reach the guide's items. The
// rare energy schedule judges how rare a state is by these counts; shared,
// the workers judge it as one campaign would (fuzzer.VisitExchange). They
// are a hint, not a finding: they go over plain NATS (visitsSubject, outside
// the stream: nothing stored, nothing to catch up), and what a worker
// misses while the hub is out of reach, or before it joined, only makes
// its counts smaller.

// A message is a kind byte, visitItems or visitChosen, then pairs of an
// item (8 bytes) and a count (4 bytes), little-endian.
const (
	visitItems  = 'v'
	visitChosen = 'c'
	visitsEntry = 12
)

// maxVisitsEntries is the most pairs in one message (well under NATS's
// default 1 MiB payload).
const maxVisitsEntries = 40000

// maxIncomingVisits is the most items whose counts wait for the loop to
// take them: past it, more are dropped (the loop takes them after every
// batch; a loop that does not is not fuzzing).
const maxIncomingVisits = 1 << 20

// ShareVisits sends the visits and choices the worker's campaign made
// since its last call to the other workers (fuzzer.VisitExchange). It
// does not block: a hub out of reach buffers a few MiB in the client, then
// drops them.
func (w *Worker) ShareVisits(v fuzzer.Visits) {
	w.shareCounts(visitItems, v.Items)
	w.shareCounts(visitChosen, v.Chosen)
}

func (w *Worker) shareCounts(kind byte, counts map[uint64]uint32) {
	if len(counts) == 0 {
		return
	}
	subject := visitsSubject + w.opt.Name
	buf := make([]byte, 1, 1+min(len(counts), maxVisitsEntries)*visitsEntry)
	buf[0] = kind
	for x, n := range counts {
		buf = binary.LittleEndian.AppendUint64(buf, x)
		buf = binary.LittleEndian.AppendUint32(buf, n)
		if len(buf) == 1+maxVisitsEntries*visitsEntry {
			_ = w.nc.Publish(subject, buf)
			buf = append(make([]byte, 0, len(buf)), kind)
		}
	}
	if len(buf) > 1 {
		_ = w.nc.Publish(subject, buf)
	}
}

// subscribeVisits takes in the other workers' visits and choices.
func (w *Worker) subscribeVisits() error {
	own := visitsSubject + w.opt.Name
	_, err := w.nc.Subscribe(visitsSubject+"*", func(m *nats.Msg) {
		if m.Subject == own || len(m.Data) == 0 || (len(m.Data)-1)%visitsEntry != 0 {
			return
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		var to *map[uint64]uint32
		switch m.Data[0] {
		case visitItems:
			to = &w.in.Visits.Items
		case visitChosen:
			to = &w.in.Visits.Chosen
		default:
			return
		}
		if *to == nil {
			*to = map[uint64]uint32{}
		}
		counts := *to
		for b := m.Data[1:]; len(b) > 0; b = b[visitsEntry:] {
			x, n := binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint32(b[8:])
			if old, ok := counts[x]; ok {
				counts[x] = old + min(n, ^uint32(0)-old)
			} else if len(counts) < maxIncomingVisits {
				counts[x] = n
			}
		}
	})
	return err
}

var _ fuzzer.VisitExchange = (*Worker)(nil)
