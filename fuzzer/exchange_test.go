package fuzzer_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/adapters/microbench"
	"github.com/modelfuzz/modelfuzz/fuzzer"
	"github.com/modelfuzz/modelfuzz/guidance"
	"github.com/modelfuzz/modelfuzz/record"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// fakeExchange hands the loop once what another campaign found, and
// answers claims.
type fakeExchange struct {
	mu     sync.Mutex
	shared fuzzer.Shared
	claim  bool
	claims []string
}

func (x *fakeExchange) Incoming() fuzzer.Shared {
	x.mu.Lock()
	defer x.mu.Unlock()
	s := x.shared
	x.shared = fuzzer.Shared{}
	return s
}

func (x *fakeExchange) Claim(sig string) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.claims = append(x.claims, sig)
	return x.claim
}

func exchangeCampaign(t *testing.T, x fuzzer.Exchange, iterations int64, minimize bool) (*fuzzer.Summary, *record.Snapshot) {
	sum, snap, _ := exchangeCampaignStats(t, x, iterations, minimize)
	return sum, snap
}

func exchangeCampaignStats(t *testing.T, x fuzzer.Exchange, iterations int64, minimize bool) (*fuzzer.Summary, *record.Snapshot, fuzzer.Stats) {
	t.Helper()
	fac, err := microbench.NewFactory(microbench.Config{Workers: 3, Tasks: 5, Inject: microbench.InjectFlushBeforeLast})
	require.NoError(t, err)
	gen, err := schedule.NewGenerator(fac.Spec(), schedule.Shape{Steps: 50, MaxMessages: 5, Requests: 2})
	require.NoError(t, err)
	st := newMemStore()
	opt := fuzzer.Options{Strategy: "trace", Measures: []fuzzer.Measure{guidance.TraceMeasure{}}, Guide: guidance.TraceMeasure{},
		Params: fuzzer.Params{Seed: 1, SeedPopulation: 20, ReseedEvery: 200, Mutations: 5, Energy: fuzzer.EnergyRare, FreshShare: 0.1, Stack: 4},
		Limits: fuzzer.Limits{Iterations: iterations, Minimize: minimize, MinimizeBudget: schedule.MinimizeOptions{MaxTries: 50}}}
	if x != nil {
		opt.Exchange = x
	}
	var last fuzzer.Stats
	opt.Progress = func(s fuzzer.Stats) { last = s }
	f, err := fuzzer.New(opt, fac, gen, st)
	require.NoError(t, err)
	sum, err := f.Run(context.Background())
	require.NoError(t, err)
	snap, err := st.Load(-1)
	require.NoError(t, err)
	return sum, snap, last
}

// What another campaign of the exchange covered is not new here: a
// campaign handed every trace of a campaign with the same seed keeps
// none of the inputs that campaign kept, and stores no coverage of its
// own for them; the others' inputs join its pool.
func TestExchangeCoverageIsNotNewHere(t *testing.T) {
	_, first := exchangeCampaign(t, nil, 200, false)
	require.NotEmpty(t, first.Coverage["traces"])
	x := &fakeExchange{shared: fuzzer.Shared{Coverage: []record.CoverageItems{{Measure: "traces", Items: first.Coverage["traces"]}}}}
	sum, second := exchangeCampaign(t, x, 20, false)
	// The first 20 inputs are the same random ones (same seed, stream 0):
	// every trace they reach was the first campaign's.
	require.Zero(t, sum.CorpusSize, "kept inputs whose coverage the exchange held")
	require.Empty(t, second.Coverage["traces"], "stored the others' coverage as its own")
	require.Equal(t, len(first.Coverage["traces"]), sum.Coverage["traces"], "the others' coverage is counted")

	x = &fakeExchange{shared: fuzzer.Shared{Inputs: first.Inputs}}
	_, _, st := exchangeCampaignStats(t, x, 1, false)
	require.GreaterOrEqual(t, st.Pool, len(first.Inputs), "the others' inputs are not in the pool")
}

// A bug another campaign claimed is not minimized here.
func TestExchangeClaimDecidesMinimization(t *testing.T) {
	for _, claim := range []bool{true, false} {
		x := &fakeExchange{claim: claim}
		sum, _ := exchangeCampaign(t, x, 3000, true)
		require.NotEmpty(t, sum.Bugs)
		require.NotEmpty(t, x.claims)
		for _, b := range sum.Bugs {
			if claim {
				require.NotNil(t, b.Minimized, "claimed bug %s not minimized", b.ID)
			} else {
				require.Nil(t, b.Minimized, "bug %s minimized though another claimed it", b.ID)
				require.Zero(t, b.MinimizeTries)
			}
		}
	}
}

// memStore is a record.Store in memory.
type memStore struct {
	mu   sync.Mutex
	snap record.Snapshot
}

func newMemStore() *memStore {
	return &memStore{snap: record.Snapshot{Coverage: map[string][]uint64{}}}
}

func (m *memStore) Load(int) (*record.Snapshot, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.snap
	s.Inputs = append([]*record.InputRecord(nil), s.Inputs...)
	s.Bugs = append([]*record.BugRecord(nil), s.Bugs...)
	return &s, nil
}

func (m *memStore) Commit(b *record.Batch) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if b.Counters != nil {
		m.snap.Counters = *b.Counters
	}
	m.snap.Inputs = append(m.snap.Inputs, b.Inputs...)
	for _, c := range b.Coverage {
		m.snap.Coverage[c.Measure] = append(m.snap.Coverage[c.Measure], c.Items...)
	}
	for _, bug := range b.Bugs {
		found := false
		for i, old := range m.snap.Bugs {
			if old.ID == bug.ID {
				m.snap.Bugs[i], found = bug, true
			}
		}
		if !found {
			m.snap.Bugs = append(m.snap.Bugs, bug)
		}
	}
	return nil
}

// visitExchange is a fakeExchange that also shares visits.
type visitExchange struct {
	fakeExchange
	sent, chosen map[uint64]uint32
}

func (x *visitExchange) ShareVisits(v fuzzer.Visits) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for k, n := range v.Items {
		x.sent[k] += n
	}
	for k, n := range v.Chosen {
		x.chosen[k] += n
	}
}

// A campaign with a VisitExchange shares the visits of every guide item it
// reached: every trace it covered was visited at least once, and the
// visits add up to its executions (one trace each).
func TestExchangeSharesVisits(t *testing.T) {
	x := &visitExchange{sent: map[uint64]uint32{}, chosen: map[uint64]uint32{}}
	sum, snap := exchangeCampaign(t, x, 300, false)
	require.NotEmpty(t, snap.Coverage["traces"])
	for _, tr := range snap.Coverage["traces"] {
		require.NotZero(t, x.sent[tr], "trace %x covered but its visits not shared", tr)
	}
	total := uint64(0)
	for _, n := range x.sent {
		total += uint64(n)
	}
	require.Equal(t, uint64(sum.Iterations), total, "the visits shared are not one trace an execution")
	require.NotEmpty(t, x.chosen, "no choice of the pool shared")
	for item := range x.chosen {
		require.NotZero(t, x.sent[item], "an input named by %x chosen, never visited", item)
	}

	// Without a VisitExchange nothing is counted for sharing, and the
	// campaign is the same.
	plain, _ := exchangeCampaign(t, &fakeExchange{}, 300, false)
	y := &visitExchange{sent: map[uint64]uint32{}, chosen: map[uint64]uint32{}}
	shared, _ := exchangeCampaign(t, y, 300, false)
	require.Equal(t, plain.Coverage, shared.Coverage, "sharing visits nobody sends back changed the campaign")
}
