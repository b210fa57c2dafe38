package corpus

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/record"
)

func counters(n int64) *record.Batch { return &record.Batch{Counters: &record.Counters{Iterations: n}} }

// snapshot is a batch with a stats snapshot, as the last commit of a
// session has: the store checks its directory before it, whenever it
// checked last.
func snapshot(n int64) *record.Batch {
	return &record.Batch{Counters: &record.Counters{Iterations: n}, Stats: &record.StatsRecord{Seq: uint64(n)}}
}

// faultOf waits (at most 30 s: generous, the machine may be busy) for the
// store's fault, found by its ticker without any commit, and returns it.
func faultOf(t *testing.T, s *Store) *FaultError {
	t.Helper()
	start := time.Now()
	select {
	case <-s.Fault():
	case <-time.After(30 * time.Second):
		t.Fatal("no fault found within 30 s")
	}
	t.Logf("fault found %v after it happened", time.Since(start).Round(time.Millisecond))
	var fe *FaultError
	require.ErrorAs(t, s.Err(), &fe)
	return fe
}

// A directory fault is found between commits, by the ticker; every commit
// then returns it and writes nothing; a corpus still there opens again
// with what was committed before.
func TestDirectoryFaults(t *testing.T) {
	for _, c := range []struct {
		name  string
		fault func(t *testing.T, dir string)
		want  string
		gone  bool
	}{
		{"removed", func(t *testing.T, dir string) { require.NoError(t, os.RemoveAll(dir)) },
			"the directory was removed (the corpus is lost)", true},
		{"replaced", func(t *testing.T, dir string) {
			require.NoError(t, os.Rename(dir, dir+".old"))
			require.NoError(t, os.Mkdir(dir, 0o755))
		}, "the directory was replaced by another one (the corpus is lost)", true},
		{"database removed", func(t *testing.T, dir string) { require.NoError(t, os.RemoveAll(filepath.Join(dir, "db"))) },
			"its database directory db was removed (the corpus is lost)", true},
		{"lock removed", func(t *testing.T, dir string) { require.NoError(t, os.Remove(filepath.Join(dir, lockFile))) },
			"the lock file modelfuzz.lock was removed: another process could open the corpus at the same time", false},
		{"lock replaced", func(t *testing.T, dir string) {
			require.NoError(t, os.Remove(filepath.Join(dir, lockFile)))
			require.NoError(t, os.WriteFile(filepath.Join(dir, lockFile), nil, 0o644))
		}, "the lock file modelfuzz.lock was replaced", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "c")
			s, err := Open(dir, Options{})
			require.NoError(t, err)
			require.NoError(t, s.Commit(counters(7)))
			c.fault(t, dir)
			fe := faultOf(t, s)
			require.Equal(t, dir, fe.Dir)
			require.Contains(t, fe.Error(), "corpus "+dir+": "+c.want)
			require.Equal(t, c.gone, fe.Gone)
			require.Equal(t, c.gone, errors.Is(fe, record.ErrStoreLost))
			require.Same(t, fe, s.Commit(counters(8)), "every commit returns the fault")

			start := time.Now()
			err = s.Close()
			t.Logf("closed in %v: %v", time.Since(start).Round(time.Millisecond), err)
			if c.gone {
				require.ErrorContains(t, err, "nothing could be written")
				return
			}
			require.NoError(t, err, "the directory is fine: the database closes")
			s, err = Open(dir, Options{MustExist: true})
			require.NoError(t, err)
			defer s.Close()
			snap, err := s.Load(-1)
			require.NoError(t, err)
			require.Equal(t, int64(7), snap.Counters.Iterations, "what was committed before the fault is there; nothing after")
			require.NoError(t, s.Commit(counters(9)), "a reopened corpus takes writes again")
		})
	}
}

// A disk filling up during a campaign stops the writes (before the
// database's memory-mapped writes could meet a full disk).
func TestDiskFillingUpIsAFault(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Commit(counters(1)))
	s.minFree = 1 << 62 // as if the disk had filled up
	err = s.Commit(snapshot(2))
	require.ErrorIs(t, err, ErrDiskFull)
	require.Contains(t, err.Error(), "corpus "+dir+": disk almost full: ")
	require.NotErrorIs(t, err, record.ErrStoreLost)
}

// A directory remounted read-only under a running campaign is a fault, and
// closing a database that cannot flush is bounded and says so. Root is not
// stopped by file modes and a file system with files open for writing
// cannot be remounted read-only, so the directory is bind-mounted on
// itself and that mount made read-only (skipped where mounting is not
// permitted).
func TestReadOnlyDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	s, err := Open(dir, Options{})
	require.NoError(t, err)
	require.NoError(t, s.Commit(counters(3)))
	if err := syscall.Mount(dir, dir, "", syscall.MS_BIND, ""); err != nil {
		s.Close()
		t.Skipf("cannot bind-mount here (%v)", err)
	}
	var once sync.Once
	unmount := func() { once.Do(func() { require.NoError(t, syscall.Unmount(dir, 0)) }) }
	t.Cleanup(unmount)
	require.NoError(t, syscall.Mount("", dir, "", syscall.MS_REMOUNT|syscall.MS_BIND|syscall.MS_RDONLY, ""))

	err = s.Commit(snapshot(4))
	require.ErrorIs(t, err, syscall.EROFS)
	require.Contains(t, err.Error(), "corpus "+dir+": the directory became read-only")
	require.NotErrorIs(t, err, record.ErrStoreLost)

	start := time.Now()
	err = s.Close()
	took := time.Since(start)
	t.Logf("closed in %v: %v", took.Round(time.Millisecond), err)
	require.Less(t, took, closeTimeout+10*time.Second, "Close is bounded")
	require.ErrorContains(t, err, "what was committed is in its write-ahead log")
}

// Close is bounded even when badger's close would wait forever (its
// memtable flush retries without end on a directory that is gone).
func TestCloseOfARemovedCorpusIsBounded(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	s, err := Open(dir, Options{})
	require.NoError(t, err)
	require.NoError(t, s.Commit(counters(5)))
	require.NoError(t, os.RemoveAll(dir))
	start := time.Now()
	err = s.Close() // before the ticker has seen anything, in most runs
	took := time.Since(start)
	t.Logf("closed in %v: %v", took.Round(time.Millisecond), err)
	require.Less(t, took, closeTimeout+10*time.Second)
	require.Error(t, err)
}
