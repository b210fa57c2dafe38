package corpus

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/record"
	"github.com/modelfuzz/modelfuzz/schedule"
)

func input(n int) *schedule.Input {
	return &schedule.Input{Steps: []schedule.Step{{Process: n, Action: schedule.Deliver, Messages: 1}}}
}

// testCampaign stands for the settings package campaign stores: the corpus
// keeps them as an opaque JSON object.
type testCampaign struct {
	Version int    `json:"version"`
	Adapter string `json:"adapter"`
	Seed    uint64 `json:"seed"`
}

func TestCommitLoadRoundTrip(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	require.NoError(t, err)
	var camp testCampaign
	found, err := s.Campaign(&camp)
	require.NoError(t, err)
	require.False(t, found)
	require.NoError(t, s.SetCampaign(&testCampaign{Version: 1, Adapter: "microbench", Seed: 3}))
	c := record.Counters{Iterations: 10, NextInputID: 3, NextBugID: 2}
	require.NoError(t, s.Commit(&record.Batch{
		Counters: &c,
		Inputs: []*record.InputRecord{
			{ID: 1, Iteration: 4, Source: "fuzz", NewItems: map[string]int{"traces": 1}, Input: input(1)},
			{ID: 2, Iteration: 9, Source: "fuzz", Parent: 1, Input: input(2)},
		},
		Coverage: []record.CoverageItems{{Measure: "traces", InputID: 1, Items: []uint64{5, 1 << 63}}},
		Bugs:     []*record.BugRecord{{ID: "B1", Kind: "panic", Signature: "sig", Hits: 1, FirstIteration: 9, Input: input(2)}},
	}))
	require.NoError(t, s.Close())

	s, err = Open(dir, Options{MustExist: true})
	require.NoError(t, err)
	defer s.Close()
	found, err = s.Campaign(&camp)
	require.NoError(t, err)
	require.True(t, found)
	require.Equal(t, uint64(3), camp.Seed)
	snap, err := s.Load(-1)
	require.NoError(t, err)
	require.Equal(t, c, snap.Counters)
	require.Len(t, snap.Inputs, 2)
	require.Equal(t, uint64(1), snap.Inputs[0].Parent+snap.Inputs[0].ID)
	require.Equal(t, input(2), snap.Inputs[1].Input)
	require.Equal(t, map[string]int{"traces": 1}, snap.Inputs[0].NewItems)
	require.Equal(t, []uint64{5, 1 << 63}, snap.Coverage["traces"])
	require.Len(t, snap.Bugs, 1)
	b, err := s.Bug("B1")
	require.NoError(t, err)
	require.Equal(t, "sig", b.Signature)
	_, err = s.Bug("B7")
	require.ErrorContains(t, err, "no bug with id B7")
	_, err = s.Bug("x")
	require.ErrorContains(t, err, `bad bug id "x"`)
	in, err := s.Input(2)
	require.NoError(t, err)
	require.Equal(t, uint64(1), in.Parent)
	_, err = s.Input(99)
	require.ErrorContains(t, err, "no input with id 99")
}

func TestSecondOpenIsRefused(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	require.NoError(t, err)
	defer s.Close()
	_, err = Open(dir, Options{})
	require.ErrorContains(t, err, "locked by another modelfuzz process (pid ")
}

func TestFreshStartsOver(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	require.NoError(t, err)
	require.NoError(t, s.SetCampaign(&testCampaign{Version: 1}))
	require.NoError(t, s.Close())
	s, err = Open(dir, Options{Fresh: true})
	require.NoError(t, err)
	defer s.Close()
	found, err := s.Campaign(&testCampaign{})
	require.NoError(t, err)
	require.False(t, found)
}

func TestRefusesDirectoriesThatAreNotCorpora(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "thesis.tex"), []byte("precious"), 0o644))
	_, err := Open(dir, Options{Fresh: true})
	require.ErrorContains(t, err, "is not a modelfuzz corpus")
	b, err := os.ReadFile(filepath.Join(dir, "thesis.tex"))
	require.NoError(t, err)
	require.Equal(t, "precious", string(b))

	_, err = Open(filepath.Join(dir, "missing"), Options{MustExist: true})
	require.ErrorContains(t, err, "no such directory")
	_, err = Open(filepath.Join(dir, "thesis.tex"), Options{})
	require.ErrorContains(t, err, "not a directory")
}

func TestCorruptedDatabaseIsAClearError(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	require.NoError(t, err)
	require.NoError(t, s.SetCampaign(&testCampaign{Version: 1}))
	require.NoError(t, s.Close())
	// Overwrite the manifest with garbage.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "db", "MANIFEST"), []byte("garbage garbage garbage"), 0o644))
	_, err = Open(dir, Options{})
	require.Error(t, err)
	require.Contains(t, err.Error(), "db/MANIFEST cannot be read (it does not start as a MANIFEST does): overwritten?; \"modelfuzz corpus repair ")
	require.NotContains(t, err.Error(), "\n")
	// The lock is released after the failed open.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "db", "MANIFEST"), nil, 0o644))
}

func TestStatsSnapshotsAndBugs(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	require.NoError(t, err)
	for i := uint64(1); i <= 3; i++ {
		require.NoError(t, s.Commit(&record.Batch{Stats: &record.StatsRecord{Seq: i, Iterations: int64(10 * i),
			Coverage: map[string]int{"traces": int(i)}}}))
	}
	require.NoError(t, s.Commit(&record.Batch{Bugs: []*record.BugRecord{
		{ID: "B2", Kind: "safety", Signature: "b", Input: input(2), Minimized: input(1), MinimizeTries: 7, MinimizeDone: true},
		{ID: "B1", Kind: "panic", Signature: "a", Input: input(3)},
	}}))
	require.NoError(t, s.Close())
	s, err = Open(dir, Options{MustExist: true})
	require.NoError(t, err)
	defer s.Close()
	st, err := s.Stats()
	require.NoError(t, err)
	require.Len(t, st, 3)
	for i, r := range st {
		require.Equal(t, uint64(i+1), r.Seq)
		require.Equal(t, i+1, r.Coverage["traces"])
	}
	bugs, err := s.Bugs()
	require.NoError(t, err)
	require.Len(t, bugs, 2)
	require.Equal(t, "B1", bugs[0].ID)
	require.Nil(t, bugs[0].Minimized)
	require.Equal(t, input(1), bugs[1].Minimized)
	require.Equal(t, input(1), bugs[1].Reproducer())
	require.Equal(t, input(3), bugs[0].Reproducer())
	require.True(t, bugs[1].MinimizeDone)
}

// An almost full disk is refused before the database's memory-mapped
// writes could hit it: at Open for a campaign, at Commit otherwise.
func TestAlmostFullDiskIsRefused(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	require.NoError(t, err)
	require.NoError(t, s.Commit(&record.Batch{Counters: &record.Counters{Iterations: 7}}))
	require.NoError(t, s.Close())

	_, err = Open(dir, Options{MinFree: 1 << 62})
	require.ErrorIs(t, err, ErrDiskFull)
	require.Contains(t, err.Error(), "free some space")

	s, err = Open(dir, Options{MustExist: true, MinFree: 1 << 62})
	require.NoError(t, err, "reading a corpus on a full disk works")
	defer s.Close()
	err = s.Commit(&record.Batch{Counters: &record.Counters{Iterations: 8}})
	require.ErrorIs(t, err, ErrDiskFull)
	snap, err := s.Load(-1)
	require.NoError(t, err)
	require.Equal(t, int64(7), snap.Counters.Iterations)
}

// A batch too large for one badger transaction is written in several,
// the counters last.
func TestLargeBatchIsWrittenWhole(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	require.NoError(t, err)
	items := make([]uint64, 300000)
	for i := range items {
		items[i] = uint64(i)*2654435761 + 1
	}
	require.NoError(t, s.Commit(&record.Batch{Counters: &record.Counters{Iterations: 3},
		Coverage: []record.CoverageItems{{Measure: "model", InputID: 1, Items: items}}}))
	require.NoError(t, s.Close())
	s, err = Open(dir, Options{MustExist: true})
	require.NoError(t, err)
	defer s.Close()
	snap, err := s.Load(-1)
	require.NoError(t, err)
	require.Equal(t, int64(3), snap.Counters.Iterations)
	require.Len(t, snap.Coverage["model"], len(items))
}

// The compact record form round-trips, is an eighth of the JSON form or less, old
// JSON records still read, and damaged records are errors.
func TestRecordForm(t *testing.T) {
	in := &schedule.Input{}
	for i := 0; i < 100; i++ {
		st := schedule.Step{Process: i % 3, Action: schedule.AllActions[i%5]}
		if st.Action == schedule.Deliver {
			st.Messages = 1 + i%5
		}
		if st.Action == schedule.Request {
			st.Value = i - 50
		}
		in.Steps = append(in.Steps, st)
	}
	rec := &record.InputRecord{ID: 1 << 40, Iteration: 123456, Source: "fuzz", Parent: 77,
		NewItems: map[string]int{"model": 12, "traces": 1}, Input: in}
	b := encodeRecord(nil, rec)
	js, err := json.Marshal(rec) // the form corpora of earlier versions stored
	require.NoError(t, err)
	require.Less(t, 8*len(b), len(js), "binary %d bytes, JSON %d", len(b), len(js))
	var got record.InputRecord
	require.NoError(t, decodeInput(b, &got))
	require.Equal(t, *rec, got)
	var old record.InputRecord
	require.NoError(t, decodeInput(js, &old))
	require.Equal(t, *rec, old)
	for n := 0; n < len(b); n++ {
		var r record.InputRecord
		require.Error(t, decodeInput(b[:n], &r), "truncated to %d bytes", n)
	}
	bad := append([]byte(nil), b...)
	bad = append(bad, 0)
	require.Error(t, decodeInput(bad, &record.InputRecord{}))

	// The guide's items ride at the end, in both forms.
	rec.GuideItems = []uint64{1, 1 << 63, 0xdeadbeef}
	b = encodeRecord(nil, rec)
	got = record.InputRecord{}
	require.NoError(t, decodeInput(b, &got))
	require.Equal(t, *rec, got)
	js, err = json.Marshal(rec)
	require.NoError(t, err)
	old = record.InputRecord{}
	require.NoError(t, decodeInput(js, &old))
	require.Equal(t, *rec, old)
	for n := len(b) - 24; n < len(b); n++ { // (cut before the count, it is a record without them)
		require.Error(t, decodeInput(b[:n], &record.InputRecord{}), "truncated to %d bytes", n)
	}

	// A genome follows the items, with them or without; cut inside it
	// the record is an error (cut just before it, one without it).
	for _, items := range [][]uint64{nil, {7, 1 << 62}} {
		rec.GuideItems = items
		rec.Genome = json.RawMessage(`{"seed":5,"keys":[` + strings.Repeat("4294967295,", 40) + `1]}`)
		b = encodeRecord(nil, rec)
		got = record.InputRecord{}
		require.NoError(t, decodeInput(b, &got))
		require.Equal(t, *rec, got)
		for n := len(b) - len(rec.Genome) - 1; n < len(b); n++ {
			require.Error(t, decodeInput(b[:n], &record.InputRecord{}), "items %v, truncated to %d bytes", items, n)
		}
		require.Error(t, decodeInput(append(slices.Clone(b), 0), &record.InputRecord{}), "a byte after the genome")
	}
}

// Inputs with the newer actions' parameters take the second record form,
// which round-trips them; truncations are errors.
func TestRecordFormV2(t *testing.T) {
	in := &schedule.Input{Steps: []schedule.Step{
		{Process: 1, Action: schedule.Deliver, Messages: 2},
		{Process: 2, Action: schedule.Drop, K: 3},
		{Process: 0, Action: schedule.Tick, N: 7},
		{Process: 1, Action: schedule.TransferLeader, To: 0},
		{Process: 2, Action: schedule.TransferLeader, To: 3},
		{Process: 0, Action: schedule.Crash, Point: schedule.MidApply},
		{Process: 0, Action: schedule.Partition, Set: 0b101},
		{Process: 1, Action: schedule.ConfChange, Conf: "add-voter 3, remove 0"},
		{Process: 1, Action: schedule.Request, Value: -4},
	}}
	rec := &record.InputRecord{ID: 9, Iteration: 10, Source: "fuzz", Input: in}
	b := encodeRecord(nil, rec)
	require.Equal(t, byte(recordV2), b[0])
	var got record.InputRecord
	require.NoError(t, decodeInput(b, &got))
	require.Equal(t, *rec, got)
	for n := 0; n < len(b); n++ {
		require.Error(t, decodeInput(b[:n], &record.InputRecord{}), "truncated to %d bytes", n)
	}
	base := &record.InputRecord{ID: 1, Source: "fuzz", Input: &schedule.Input{Steps: in.Steps[:1]}}
	require.Equal(t, byte(recordV1), encodeRecord(nil, base)[0], "inputs of the first five actions keep the first form")
}

// A process killed between creating a memtable or value log file and
// sizing it leaves an empty file; the corpus still opens, with everything
// committed before.
func TestEmptyLogFilesLeftByAKillAreIgnored(t *testing.T) {
	for _, name := range []string{"00099.mem", "000099.vlog"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			s, err := Open(dir, Options{})
			require.NoError(t, err)
			require.NoError(t, s.Commit(&record.Batch{Stats: &record.StatsRecord{Seq: 1, Iterations: 10}}))
			require.NoError(t, s.Close())
			require.NoError(t, os.WriteFile(filepath.Join(dir, "db", name), nil, 0o644))
			s, err = Open(dir, Options{MustExist: true})
			require.NoError(t, err)
			defer s.Close()
			st, err := s.Stats()
			require.NoError(t, err)
			require.Len(t, st, 1)
			require.Equal(t, int64(10), st[0].Iterations)
		})
	}
}

// What a learning strategy stores comes back on reopening, a later entry
// of the same table and state replacing the earlier one.
func TestLearnedRoundTrip(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	require.NoError(t, err)
	require.NoError(t, s.Commit(&record.Batch{Learned: []record.Learned{
		{Table: "bonusmaxrl", State: 7, Value: []byte("a")},
		{Table: "waypointrl.2", State: 1 << 63, Value: []byte("b")},
	}}))
	require.NoError(t, s.Commit(&record.Batch{Learned: []record.Learned{{Table: "bonusmaxrl", State: 7, Value: []byte("c")}}}))
	require.ErrorContains(t, s.Commit(&record.Batch{Learned: []record.Learned{{Table: "a/b", State: 1}}}), `learned table "a/b"`)
	require.NoError(t, s.Close())
	s, err = Open(dir, Options{})
	require.NoError(t, err)
	defer s.Close()
	snap, err := s.Load(0)
	require.NoError(t, err)
	require.Equal(t, []record.Learned{
		{Table: "bonusmaxrl", State: 7, Value: []byte("c")},
		{Table: "waypointrl.2", State: 1 << 63, Value: []byte("b")},
	}, snap.Learned)
}
