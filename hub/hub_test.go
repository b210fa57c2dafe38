package hub

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/fuzzer"
	"github.com/modelfuzz/modelfuzz/record"
	"github.com/modelfuzz/modelfuzz/schedule"
)

func startHub(t *testing.T, dir, listen string) *Hub {
	t.Helper()
	h, err := Start(ServerOptions{Dir: dir, Listen: listen})
	require.NoError(t, err)
	return h
}

func join(t *testing.T, url, name, corpus string, settings string) (*Worker, error) {
	return Join(JoinOptions{URL: url, Name: name, Corpus: corpus, Settings: []byte(settings),
		Check: func(stored []byte) error {
			if string(stored) != settings {
				return fmt.Errorf("its campaign runs with %s (not %s)", stored, settings)
			}
			return nil
		}})
}

func input(n int) *schedule.Input {
	in := &schedule.Input{}
	for i := 0; i < n; i++ {
		in.Steps = append(in.Steps, schedule.Step{Process: i % 3, Action: schedule.Timeout})
	}
	return in
}

// memStore is a record.Store in memory.
type memStore struct {
	mu   sync.Mutex
	snap record.Snapshot
}

func (m *memStore) Load(int) (*record.Snapshot, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.snap
	return &s, nil
}

func (m *memStore) Commit(b *record.Batch) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.snap.Inputs = append(m.snap.Inputs, b.Inputs...)
	if m.snap.Coverage == nil {
		m.snap.Coverage = map[string][]uint64{}
	}
	for _, c := range b.Coverage {
		m.snap.Coverage[c.Measure] = append(m.snap.Coverage[c.Measure], c.Items...)
	}
	m.snap.Bugs = append(m.snap.Bugs, b.Bugs...)
	return nil
}

func drained(t *testing.T, w *Worker) {
	t.Helper()
	require.Eventually(t, func() bool { return w.Unpublished() == 0 }, time.Minute, 10*time.Millisecond)
}

func TestJoinRefusesOtherSettingsAndNames(t *testing.T) {
	h := startHub(t, t.TempDir(), "127.0.0.1:0")
	defer h.Close()
	a, err := join(t, h.URL(), "a", "/c/a", `{"seed":1}`)
	require.NoError(t, err)
	defer a.Close(time.Second)
	_, err = join(t, h.URL(), "b", "/c/b", `{"seed":2}`)
	require.EqualError(t, err, fmt.Sprintf(`hub %s: its campaign runs with {"seed":1} (not {"seed":2})`, h.URL()))
	_, err = join(t, h.URL(), "a", "/c/other", `{"seed":1}`)
	require.ErrorContains(t, err, "a worker named a is running")
	require.ErrorContains(t, err, "give this one another --worker name")
	a.Close(time.Second)
	a, err = join(t, h.URL(), "a", "/c/other", `{"seed":1}`)
	require.NoError(t, err, "a worker that left leaves its name free")
	_, err = join(t, h.URL(), "a b", "/c/x", `{"seed":1}`)
	require.ErrorContains(t, err, "a worker's name is")
	_, err = Open("nats://127.0.0.1:1")
	require.Error(t, err)
}

// Two workers: what one commits reaches the other (coverage and inputs,
// not its own back); a bug both found is one bug with the hits of both,
// claimed (minimized) by one.
func TestWorkersShareCoverageInputsAndBugs(t *testing.T) {
	h := startHub(t, t.TempDir(), "127.0.0.1:0")
	defer h.Close()
	a, err := join(t, h.URL(), "a", "/c/a", `{}`)
	require.NoError(t, err)
	defer a.Close(time.Second)
	b, err := join(t, h.URL(), "b", "/c/b", `{}`)
	require.NoError(t, err)
	defer b.Close(time.Second)
	sa, sb := a.Store(&memStore{}), b.Store(&memStore{})
	_, err = sa.Load(-1)
	require.NoError(t, err)
	_, err = sb.Load(-1)
	require.NoError(t, err)

	bug := &record.BugRecord{ID: "B1", Kind: "safety", Signature: "safety: two leaders", Message: "two leaders", Hits: 2, Input: input(9)}
	require.True(t, a.Claim(bug.Signature))
	require.NoError(t, sa.Commit(&record.Batch{
		Inputs:   []*record.InputRecord{{ID: 1, Iteration: 3, Source: "fuzz", GuideItems: []uint64{7}, GuideSteps: []int{2}, Input: input(4)}},
		Coverage: []record.CoverageItems{{Measure: "model", InputID: 1, Items: []uint64{7, 8}}},
		Bugs:     []*record.BugRecord{bug}}))
	var got fuzzer.Shared
	require.Eventually(t, func() bool {
		in := b.Incoming()
		got.Coverage, got.Inputs = append(got.Coverage, in.Coverage...), append(got.Inputs, in.Inputs...)
		return len(got.Coverage) > 0 && len(got.Inputs) > 0
	}, time.Minute, 10*time.Millisecond)
	require.Equal(t, []uint64{7, 8}, got.Coverage[0].Items)
	require.Equal(t, input(4), got.Inputs[0].Input)
	require.Equal(t, []uint64{7}, got.Inputs[0].GuideItems)
	require.Equal(t, []int{2}, got.Inputs[0].GuideSteps, "the step at which the input reached its item is not shared")
	require.Empty(t, a.Incoming().Inputs, "a worker's own inputs come back to it")

	require.False(t, b.Claim(bug.Signature), "a bug claimed by a is minimized by b too")
	require.True(t, a.Claim(bug.Signature))
	theirs := *bug
	theirs.ID, theirs.Hits, theirs.Minimized = "B4", 5, input(2)
	require.NoError(t, sb.Commit(&record.Batch{Bugs: []*record.BugRecord{&theirs}}))
	drained(t, a)
	drained(t, b)
	cl, err := h.Client()
	require.NoError(t, err)
	bugs, err := cl.Bugs()
	require.NoError(t, err)
	require.Len(t, bugs, 1)
	require.Equal(t, "B1", bugs[0].ID)
	require.Equal(t, map[string]int64{"a": 2, "b": 5}, bugs[0].Hits)
	require.Equal(t, "a", bugs[0].Owner)
	require.Equal(t, input(9), bugs[0].Input)
	require.Equal(t, input(2), bugs[0].Minimized)
	cov, _, byWorker, err := cl.Coverage()
	require.NoError(t, err)
	require.Equal(t, map[string]int{"model": 2}, cov)
	require.Equal(t, map[string]int{"a": 2}, byWorker)
}

// A worker that joins again publishes what its corpus holds and the hub
// lacks (what a kill -9 kept from being published), and nothing twice.
func TestRejoinPublishesWhatTheHubLacks(t *testing.T) {
	h := startHub(t, t.TempDir(), "127.0.0.1:0")
	defer h.Close()
	local := &memStore{}
	for id := uint64(1); id <= 3; id++ {
		local.snap.Inputs = append(local.snap.Inputs, &record.InputRecord{ID: id, Source: "fuzz", Input: input(int(id))})
	}
	local.snap.Coverage = map[string][]uint64{"model": {1, 2, 3}}
	count := func() (inputs int, items int) {
		cl, err := h.Client()
		require.NoError(t, err)
		require.NoError(t, cl.Scan("input", func([]byte, time.Time) error { inputs++; return nil }))
		require.NoError(t, cl.Scan("cov", func(data []byte, _ time.Time) error { items += strings.Count(string(data), ","); return nil }))
		return inputs, items
	}
	for round, want := range []int{3, 5} {
		w, err := join(t, h.URL(), "a", "/c/a", `{}`)
		require.NoError(t, err)
		_, err = w.Store(local).Load(-1)
		require.NoError(t, err)
		drained(t, w)
		w.Close(time.Second)
		inputs, _ := count()
		require.Equal(t, want, inputs, "round %d", round)
		local.snap.Inputs = append(local.snap.Inputs, &record.InputRecord{ID: uint64(4 + round), Source: "fuzz", Input: input(4)},
			&record.InputRecord{ID: uint64(5 + round), Source: "fuzz", Input: input(5)})
	}
	cl, err := h.Client()
	require.NoError(t, err)
	cov, _, _, err := cl.Coverage()
	require.NoError(t, err)
	require.Equal(t, 3, cov["model"])
}

// The hub stopped and started again on its directory keeps everything; a
// worker goes on meanwhile and publishes what it found once the hub is
// back.
func TestHubRestartLosesNothing(t *testing.T) {
	dir := t.TempDir()
	h := startHub(t, dir, "127.0.0.1:0")
	url := h.URL()
	w, err := join(t, url, "a", "/c/a", `{}`)
	require.NoError(t, err)
	defer w.Close(time.Second)
	st := w.Store(&memStore{})
	_, err = st.Load(-1)
	require.NoError(t, err)
	require.NoError(t, st.Commit(&record.Batch{Inputs: []*record.InputRecord{{ID: 1, Source: "fuzz", Input: input(1)}},
		Bugs: []*record.BugRecord{{ID: "B1", Kind: "panic", Signature: "panic: x", Hits: 1, Input: input(3)}}}))
	drained(t, w)
	h.Close()
	// Down: the worker goes on.
	require.NoError(t, st.Commit(&record.Batch{Inputs: []*record.InputRecord{{ID: 2, Source: "fuzz", Input: input(2)}}}))
	time.Sleep(200 * time.Millisecond)
	require.Equal(t, 1, w.Unpublished())
	h = startHub(t, dir, strings.TrimPrefix(url, "nats://"))
	defer h.Close()
	drained(t, w)
	cl, err := h.Client()
	require.NoError(t, err)
	n := 0
	require.NoError(t, cl.Scan("input", func([]byte, time.Time) error { n++; return nil }))
	require.Equal(t, 2, n)
	bugs, err := cl.Bugs()
	require.NoError(t, err)
	require.Len(t, bugs, 1)
	require.Equal(t, "B1", bugs[0].ID)
}

func TestStartRefusesBadPlaces(t *testing.T) {
	_, err := Start(ServerOptions{Dir: t.TempDir(), Listen: "nowhere"})
	require.ErrorContains(t, err, `--listen "nowhere"`)
	_, err = Start(ServerOptions{Listen: "127.0.0.1:0"})
	require.ErrorContains(t, err, "a hub needs --dir")
	_, err = Start(ServerOptions{URL: "nats://127.0.0.1:1"})
	require.Error(t, err)
	require.False(t, errors.Is(err, nil))
}

// A hub on an existing NATS (--nats): nothing embedded, the same campaign.
func TestHubOnAnExistingServer(t *testing.T) {
	nats := startHub(t, t.TempDir(), "127.0.0.1:0") // stands for a NATS cluster
	defer nats.Close()
	h, err := Start(ServerOptions{URL: nats.URL()})
	require.NoError(t, err)
	defer h.Close()
	require.Equal(t, nats.URL(), h.URL())
	w, err := join(t, h.URL(), "a", "/c/a", `{}`)
	require.NoError(t, err)
	defer w.Close(time.Second)
	cl, err := h.Client()
	require.NoError(t, err)
	settings, err := cl.Settings()
	require.NoError(t, err)
	require.Equal(t, "{}", string(settings))
}
