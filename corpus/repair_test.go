package corpus

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/internal/testutil"
	"github.com/modelfuzz/modelfuzz/record"
)

// commitInputs stores inputs from..to (ids), the bug, and counters that
// match them.
func commitInputs(t *testing.T, s *Store, from, to uint64, bug string) {
	t.Helper()
	b := &record.Batch{Counters: &record.Counters{Iterations: int64(to) * 10, NextInputID: to + 1, NextBugID: int(to/5) + 1}}
	for id := from; id <= to; id++ {
		b.Inputs = append(b.Inputs, &record.InputRecord{ID: id, Iteration: int64(id) * 10, Source: "fuzz", Input: input(int(id % 3))})
		b.Coverage = append(b.Coverage, record.CoverageItems{Measure: "traces", InputID: id, Items: []uint64{id}})
	}
	if bug != "" {
		b.Bugs = []*record.BugRecord{{ID: bug, Kind: "panic", Signature: "sig " + bug, Hits: 1, Input: input(1)}}
	}
	require.NoError(t, s.Commit(b))
}

// session opens the corpus, stores inputs from..to and closes it: each
// session's writes end up in a table file of their own.
func session(t *testing.T, dir string, from, to uint64, bug string) {
	t.Helper()
	s, err := Open(dir, Options{})
	require.NoError(t, err)
	if from == 1 {
		require.NoError(t, s.SetCampaign(&testCampaign{Version: 1, Adapter: "microbench", Seed: 1}))
	}
	commitInputs(t, s, from, to, bug)
	require.NoError(t, s.Close())
}

// files lists a directory tree's files (not the lock) with their sizes.
func files(t *testing.T, dir string) []string {
	var out []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		if !d.IsDir() && d.Name() != lockFile {
			fi, err := d.Info()
			require.NoError(t, err)
			rel, _ := filepath.Rel(dir, p)
			out = append(out, fmt.Sprintf("%s %d %v", rel, fi.Size(), fi.ModTime()))
		}
		return nil
	}))
	sort.Strings(out)
	return out
}

func truncateFirstTable(t *testing.T, dir string) string {
	t.Helper()
	names, err := tableFiles(filepath.Join(dir, "db"))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(names), 2, "two sessions, two tables")
	p := filepath.Join(dir, "db", names[0])
	fi, err := os.Stat(p)
	require.NoError(t, err)
	require.NoError(t, os.Truncate(p, fi.Size()/2))
	return filepath.Join("db", names[0])
}

// A table file cut in half: every open says so in one line and leaves the
// directory as it was; Repair keeps the other table, says what was lost,
// and the corpus opens again with its counters ahead of every id.
func TestDamagedTableAndRepair(t *testing.T) {
	dir := t.TempDir()
	session(t, dir, 1, 5, "B1")
	session(t, dir, 6, 10, "B2")
	damaged := truncateFirstTable(t, dir)

	before := files(t, dir)
	for _, opt := range []Options{{}, {MustExist: true}, {MustExist: true, ReadOnly: true}} {
		_, err := Open(dir, opt)
		var de *DamagedError
		require.True(t, errors.As(err, &de), "%v", err)
		require.Equal(t, damaged, de.File)
		require.NotContains(t, err.Error(), "\n")
		require.Contains(t, err.Error(), "damaged table file "+damaged+" (its index cannot be read")
		require.Contains(t, err.Error(), `"modelfuzz corpus repair `+dir+`" keeps what can still be read`)
		require.Equal(t, before, files(t, dir), "a refused open leaves nothing behind")
	}

	rep, err := Repair(dir)
	require.NoError(t, err)
	require.False(t, rep.Nothing)
	require.Len(t, rep.Damaged, 1)
	require.True(t, strings.HasPrefix(rep.Damaged[0], damaged+": "), rep.Damaged[0])
	require.Equal(t, 5, rep.Inputs)
	require.Equal(t, []uint64{1, 2, 3, 4, 5}, rep.MissingInputs)
	require.Equal(t, []string{"B1"}, rep.MissingBugs)
	require.False(t, rep.Campaign, "the settings were in the first session's table")
	require.Equal(t, filepath.Join(dir, "db.damaged"), rep.Kept)

	s, err := Open(dir, Options{})
	require.NoError(t, err)
	snap, err := s.Load(-1)
	require.NoError(t, err)
	require.Len(t, snap.Inputs, 5)
	require.Equal(t, uint64(6), snap.Inputs[0].ID)
	require.Equal(t, []uint64{6, 7, 8, 9, 10}, snap.Coverage["traces"])
	require.Len(t, snap.Bugs, 1)
	require.Equal(t, "B2", snap.Bugs[0].ID)
	require.Equal(t, uint64(11), snap.Counters.NextInputID)
	require.Equal(t, 3, snap.Counters.NextBugID)
	commitInputs(t, s, 11, 12, "") // the campaign goes on
	require.NoError(t, s.Close())

	rep, err = Repair(dir)
	require.NoError(t, err)
	require.True(t, rep.Nothing, "a sound corpus is left alone")
}

// The commits not yet in a table (in the memtable log, as after a kill -9)
// are read back by Repair, and the counters are raised past them.
func TestRepairReadsTheMemtableLog(t *testing.T) {
	dir := t.TempDir()
	session(t, dir, 1, 5, "B1")
	session(t, dir, 6, 10, "B2")
	s, err := Open(dir, Options{})
	require.NoError(t, err)
	commitInputs(t, s, 11, 13, "B3")
	// The image a kill -9 leaves: the files as they are while it is open.
	killed := filepath.Join(t.TempDir(), "killed")
	require.NoError(t, os.CopyFS(killed, os.DirFS(dir)))
	require.NoError(t, s.Close())
	truncateFirstTable(t, killed)

	rep, err := Repair(killed)
	require.NoError(t, err)
	require.Positive(t, rep.Logged)
	require.Empty(t, rep.LogNote)
	require.Equal(t, 8, rep.Inputs)
	require.Equal(t, []uint64{1, 2, 3, 4, 5}, rep.MissingInputs)
	require.Equal(t, []string{"B1"}, rep.MissingBugs)

	s, err = Open(killed, Options{MustExist: true})
	require.NoError(t, err)
	defer s.Close()
	in, err := s.Input(13)
	require.NoError(t, err)
	require.Equal(t, int64(130), in.Iteration)
	snap, err := s.Load(-1)
	require.NoError(t, err)
	require.Equal(t, uint64(14), snap.Counters.NextInputID)
}

// A corpus held by a running campaign, and one in a read-only directory,
// are read from snapshots; writes to those are refused; nothing is left.
func TestReadOnlySnapshot(t *testing.T) {
	dir := t.TempDir()
	session(t, dir, 1, 5, "B1")
	s, err := Open(dir, Options{})
	require.NoError(t, err)
	defer s.Close()
	commitInputs(t, s, 6, 7, "B2") // in the memtable log only

	_, err = Open(dir, Options{MustExist: true})
	require.ErrorContains(t, err, "locked by another modelfuzz process (pid ")
	r, err := Open(dir, Options{MustExist: true, ReadOnly: true})
	require.NoError(t, err)
	require.Contains(t, r.ReadOnly(), "this process (pid ")
	snap, err := r.Load(-1)
	require.NoError(t, err)
	require.Len(t, snap.Inputs, 7)
	require.Len(t, snap.Bugs, 2)
	err = r.Commit(&record.Batch{Counters: &record.Counters{}})
	require.ErrorContains(t, err, "opened read-only (a snapshot)")
	require.ErrorContains(t, r.SetCampaign(&testCampaign{}), "cannot write to it")
	tmp := r.snapshot
	require.DirExists(t, tmp)
	require.NoError(t, r.Close())
	require.NoDirExists(t, tmp, "Close removes the snapshot")

	commitInputs(t, s, 8, 8, "") // a later snapshot sees later commits
	r, err = Open(dir, Options{MustExist: true, ReadOnly: true})
	require.NoError(t, err)
	_, err = r.Input(8)
	require.NoError(t, err)
	require.NoError(t, r.Close())

	// A read-only copy (chmod -R a-w).
	ro := testutil.ReadOnlyCopy(t, dir)
	before := files(t, ro)
	r, err = Open(ro, Options{MustExist: true, ReadOnly: true})
	require.NoError(t, err)
	require.Equal(t, "its directory is read-only", r.ReadOnly())
	snap, err = r.Load(-1)
	require.NoError(t, err)
	require.Len(t, snap.Inputs, 8)
	require.NoError(t, r.Close())
	require.Equal(t, before, files(t, ro), "a read-only corpus is not written")
}

// A table file the MANIFEST does not list (a crash while one was written)
// is none of the database's: the corpus opens, and badger removes it.
func TestUnlistedTableIsNotDamage(t *testing.T) {
	dir := t.TempDir()
	session(t, dir, 1, 3, "B1")
	junk := filepath.Join(dir, "db", "000099.sst")
	require.NoError(t, os.WriteFile(junk, []byte("half a table"), 0o644))
	s, err := Open(dir, Options{MustExist: true})
	require.NoError(t, err)
	_, err = s.Input(3)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	require.NoFileExists(t, junk)
}
