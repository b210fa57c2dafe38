package corpus

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/record"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// threeSessions stores a campaign over three sessions, each closed (a
// table file each): inputs 1-30, 31-60, 61-2060 (a table of several
// blocks), and bug B1 updated in every session (its hits 1, 2, 3), so that
// the newest version of B1 and of the counters is in the newest table, in
// its first block, and older ones in the others.
func threeSessions(t *testing.T, dir string) {
	t.Helper()
	for s := uint64(0); s < 3; s++ {
		st, err := Open(dir, Options{})
		require.NoError(t, err)
		if s == 0 {
			require.NoError(t, st.SetCampaign(&testCampaign{Version: 1, Adapter: "microbench", Seed: 1}))
		}
		from, to := 30*s+1, 30*s+30
		if s == 2 {
			to = 2060
		}
		b := &record.Batch{Counters: &record.Counters{Iterations: int64(to) * 10, NextInputID: to + 1, NextBugID: 2, Sessions: int(s + 1)}}
		for id := from; id <= to; id++ {
			b.Inputs = append(b.Inputs, &record.InputRecord{ID: id, Iteration: int64(id) * 10, Source: "fuzz", Input: input(int(id % 3))})
			b.Coverage = append(b.Coverage, record.CoverageItems{Measure: "traces", InputID: id, Items: []uint64{id}})
		}
		b.Bugs = []*record.BugRecord{{ID: "B1", Kind: "panic", Signature: "sig", Hits: int64(s + 1), Input: input(1)}}
		require.NoError(t, st.Commit(b))
		require.NoError(t, st.Close())
	}
}

// bytesOf lists the files under dir (not the lock) with a hash of each.
func bytesOf(t *testing.T, dir string) []string {
	var out []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		if d.IsDir() || d.Name() == lockFile {
			return nil
		}
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		rel, _ := filepath.Rel(dir, p)
		out = append(out, fmt.Sprintf("%s %x", rel, sha256.Sum256(b)))
		return nil
	}))
	sort.Strings(out)
	return out
}

func tables(t *testing.T, dir string) []string {
	names, err := tableFiles(filepath.Join(dir, "db"))
	require.NoError(t, err)
	require.Len(t, names, 3, "three sessions, three tables")
	return names
}

// overwrite puts n random bytes at off in path.
func overwrite(t *testing.T, path string, off, n int64) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	require.NoError(t, err)
	defer f.Close()
	b := make([]byte, n)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	_, err = f.WriteAt(b, off)
	require.NoError(t, err)
}

// Every damage badger would read as older data, or would throw records
// away for, is refused by every kind of open with one line naming the
// file and the repair command; the refused open changes no byte.
func TestDamageIsRefusedAndNamed(t *testing.T) {
	for _, c := range []struct {
		name, file, want string
		damage           func(t *testing.T, db string, tables []string)
	}{
		{"manifest missing", "db/MANIFEST", "db/MANIFEST is missing", func(t *testing.T, db string, _ []string) {
			require.NoError(t, os.Remove(filepath.Join(db, "MANIFEST")))
		}},
		{"manifest empty", "db/MANIFEST", "db/MANIFEST is empty", func(t *testing.T, db string, _ []string) {
			require.NoError(t, os.Truncate(filepath.Join(db, "MANIFEST"), 0))
		}},
		{"manifest cut short", "db/MANIFEST", "db/MANIFEST is cut short: its last", func(t *testing.T, db string, _ []string) {
			fi, err := os.Stat(filepath.Join(db, "MANIFEST"))
			require.NoError(t, err)
			require.NoError(t, os.Truncate(filepath.Join(db, "MANIFEST"), fi.Size()-3))
		}},
		{"manifest cut after its first record", "db/MANIFEST", "db/MANIFEST does not list the table file(s) ", func(t *testing.T, db string, _ []string) {
			b, err := os.ReadFile(filepath.Join(db, "MANIFEST"))
			require.NoError(t, err)
			require.NoError(t, os.Truncate(filepath.Join(db, "MANIFEST"), int64(16+binary.BigEndian.Uint32(b[8:12]))))
		}},
		{"manifest overwritten", "db/MANIFEST", "db/MANIFEST cannot be read (", func(t *testing.T, db string, _ []string) {
			overwrite(t, filepath.Join(db, "MANIFEST"), 16, 8)
		}},
		{"garbage in a table", "db/000003.sst", "damaged table file db/000003.sst (block 1 of its ", func(t *testing.T, db string, tables []string) {
			overwrite(t, filepath.Join(db, tables[2]), 40, 64)
		}},
		{"table missing", "db/000002.sst", "table file db/000002.sst, which db/MANIFEST lists, is missing", func(t *testing.T, db string, tables []string) {
			require.NoError(t, os.Remove(filepath.Join(db, tables[1])))
		}},
		{"value log header", "db/000003.vlog", "damaged value log file db/000003.vlog (its header names an encryption key", func(t *testing.T, db string, _ []string) {
			overwrite(t, filepath.Join(db, "000003.vlog"), 0, 20)
		}},
		{"value log cut short", "db/000003.vlog", "damaged value log file db/000003.vlog (7 bytes, shorter than its 20-byte header", func(t *testing.T, db string, _ []string) {
			require.NoError(t, os.Truncate(filepath.Join(db, "000003.vlog"), 7))
		}},
		{"key registry", "db/KEYREGISTRY", "damaged file db/KEYREGISTRY (the key registry cannot be read", func(t *testing.T, db string, _ []string) {
			overwrite(t, filepath.Join(db, "KEYREGISTRY"), 0, 28)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			threeSessions(t, dir)
			db := filepath.Join(dir, "db")
			c.damage(t, db, tables(t, dir))
			before := bytesOf(t, dir)
			for _, opt := range []Options{{}, {MustExist: true}, {MustExist: true, ReadOnly: true}} {
				_, err := Open(dir, opt)
				var de *DamagedError
				require.True(t, errors.As(err, &de), "%+v: %v", opt, err)
				require.Equal(t, c.file, de.File)
				require.Contains(t, err.Error(), c.want)
				require.Contains(t, err.Error(), `; "modelfuzz corpus repair `+dir+`" keeps what can still be read`)
				require.NotContains(t, err.Error(), "\n")
				require.Equal(t, before, bytesOf(t, dir), "a refused open changes nothing")
			}
		})
	}
}

// What a crash leaves, and what holds nothing, is not damage: a table
// file the MANIFEST does not list whose entries are all in the tables it
// lists (a compaction or flush cut short), a missing key registry.
func TestCrashLeftoversAreNotDamage(t *testing.T) {
	dir := t.TempDir()
	threeSessions(t, dir)
	db := filepath.Join(dir, "db")
	names := tables(t, dir)
	b, err := os.ReadFile(filepath.Join(db, names[2]))
	require.NoError(t, err)
	leftover := filepath.Join(db, "000009.sst")
	require.NoError(t, os.WriteFile(leftover, b, 0o644))
	require.NoError(t, os.Remove(filepath.Join(db, "KEYREGISTRY")))
	s, err := Open(dir, Options{MustExist: true})
	require.NoError(t, err)
	bug, err := s.Bug("B1")
	require.NoError(t, err)
	require.Equal(t, int64(3), bug.Hits)
	require.NoError(t, s.Close())
	require.NoFileExists(t, leftover, "badger removes what its MANIFEST does not list")
}

// A database directory lost, emptied, or its marker lost: said in one
// line with the way out; Repair restores a lost marker.
func TestLostDatabaseAndMarker(t *testing.T) {
	dir := t.TempDir()
	threeSessions(t, dir)
	lost := filepath.Join(t.TempDir(), "lost")
	require.NoError(t, os.CopyFS(lost, os.DirFS(dir)))
	require.NoError(t, os.RemoveAll(filepath.Join(lost, "db")))
	for _, opt := range []Options{{}, {MustExist: true, ReadOnly: true}} {
		_, err := Open(lost, opt)
		require.ErrorContains(t, err, "its database, db/, is missing: its records are gone and there is nothing to repair; \"modelfuzz run --fresh --corpus "+lost+"\"")
		require.NoDirExists(t, filepath.Join(lost, "db"), "a campaign never starts over by itself")
	}
	_, err := Repair(lost)
	require.ErrorContains(t, err, "is missing: its records are gone and there is nothing to repair")
	require.NoError(t, os.Mkdir(filepath.Join(lost, "db"), 0o700))
	_, err = Open(lost, Options{})
	require.ErrorContains(t, err, "its database, db/, is empty")
	s, err := Open(lost, Options{Fresh: true})
	require.NoError(t, err, "--fresh starts over")
	require.NoError(t, s.Close())

	require.NoError(t, os.Remove(filepath.Join(dir, markerFile)))
	_, err = Open(dir, Options{MustExist: true, ReadOnly: true})
	var me *MarkerError
	require.True(t, errors.As(err, &me), "%v", err)
	require.ErrorContains(t, err, "MODELFUZZ, the file that marks a corpus, is missing, though db/ holds a database; \"modelfuzz corpus repair "+dir+"\" restores it")
	rep, err := Repair(dir)
	require.NoError(t, err)
	require.True(t, rep.MarkerRestored)
	require.True(t, rep.Nothing)
	s, err = Open(dir, Options{MustExist: true})
	require.NoError(t, err)
	require.NoError(t, s.Close())
}

// Garbage in the newest table: Repair keeps every block that verifies,
// says how many entries it lost, and names the records it could only keep
// at an older version (the bug's hits go back from 3 to 2, and it says
// so); a lost MANIFEST loses nothing at all.
func TestRepairSalvagesBlocksAndNamesOlderRecords(t *testing.T) {
	dir := t.TempDir()
	threeSessions(t, dir)
	names := tables(t, dir)
	before := readAll(t, dir)
	overwrite(t, filepath.Join(dir, "db", names[2]), 40, 64)
	rep, err := Repair(dir)
	require.NoError(t, err)
	require.Len(t, rep.Damaged, 1)
	require.Contains(t, rep.Damaged[0], "db/"+names[2]+": 1 of its ")
	require.Contains(t, rep.Damaged[0], "blocks are damaged (their checksum does not match, or they do not decompress)")
	require.Positive(t, rep.Lost)
	require.Contains(t, rep.Older, "B1")
	require.True(t, rep.CountersRebuilt)
	after := readAll(t, dir)
	require.Equal(t, int64(2), after.bugs["B1"].Hits, "the older version, and Repair said so")
	for id, in := range after.inputs {
		require.Equal(t, before.inputs[id], in, "input %d kept as it was", id)
	}
	s, err := Open(dir, Options{MustExist: true})
	require.NoError(t, err)
	snap, err := s.Load(0)
	require.NoError(t, err)
	require.Equal(t, uint64(2061), snap.Counters.NextInputID, "ids are never reused")
	require.NoError(t, s.Close())

	// A MANIFEST lost: every table is read, nothing is lost.
	dir = t.TempDir()
	threeSessions(t, dir)
	before = readAll(t, dir)
	require.NoError(t, os.Remove(filepath.Join(dir, "db", "MANIFEST")))
	rep, err = Repair(dir)
	require.NoError(t, err)
	require.Equal(t, "db/MANIFEST is missing (it lists the database's table files)", rep.Problem)
	require.Equal(t, 3, rep.Tables)
	require.Zero(t, rep.Lost)
	require.Empty(t, rep.MissingInputs)
	require.Empty(t, rep.Older)
	require.Equal(t, before, readAll(t, dir))
}

type allRecords struct {
	inputs map[uint64]string
	bugs   map[string]*record.BugRecord
}

func readAll(t *testing.T, dir string) allRecords {
	s, err := Open(dir, Options{MustExist: true, ReadOnly: true})
	require.NoError(t, err)
	defer s.Close()
	snap, err := s.Load(-1)
	require.NoError(t, err)
	out := allRecords{inputs: map[uint64]string{}, bugs: map[string]*record.BugRecord{}}
	for _, in := range snap.Inputs {
		out.inputs[in.ID] = fmt.Sprint(in.Iteration, in.Source, in.Input.Steps)
	}
	for _, b := range snap.Bugs {
		out.bugs[b.ID] = b
	}
	return out
}

// BenchmarkOpenChecksEveryBlock measures what the integrity check costs an
// open: a corpus of 60,000 inputs of 100 steps (about the inputs a
// model-guided campaign on etcd raft keeps in 11 minutes), opened as a
// campaign opens it (every table's blocks read and checked first) and by
// badger alone. MB/s is of the database's files.
func BenchmarkOpenChecksEveryBlock(b *testing.B) {
	dir := b.TempDir()
	s, err := Open(dir, Options{})
	require.NoError(b, err)
	r := rand.New(rand.NewPCG(1, 1))
	acts := []schedule.Action{schedule.Deliver, schedule.Request, schedule.Crash, schedule.Restart, schedule.Timeout}
	const inputs = 60000
	for id := uint64(1); id <= inputs; id += 1000 {
		batch := &record.Batch{Counters: &record.Counters{NextInputID: id + 1000}}
		for k := id; k < id+1000; k++ {
			in := &schedule.Input{}
			for i := 0; i < 100; i++ {
				st := schedule.Step{Process: r.IntN(3), Action: acts[r.IntN(len(acts))]}
				switch st.Action {
				case schedule.Deliver:
					st.Messages = 1 + r.IntN(5)
				case schedule.Request:
					st.Value = r.IntN(1000)
				}
				in.Steps = append(in.Steps, st)
			}
			batch.Inputs = append(batch.Inputs, &record.InputRecord{ID: k, Iteration: int64(k), Source: "fuzz", Input: in})
		}
		require.NoError(b, s.Commit(batch))
	}
	require.NoError(b, s.Close())
	var size int64
	names, _ := filepath.Glob(filepath.Join(dir, "db", "*"))
	for _, n := range names {
		if fi, err := os.Stat(n); err == nil {
			size += fi.Size()
		}
	}
	b.Run("checked", func(b *testing.B) {
		b.SetBytes(size)
		for i := 0; i < b.N; i++ {
			s, err := Open(dir, Options{MustExist: true})
			require.NoError(b, err)
			require.NoError(b, s.Close())
		}
	})
	b.Run("badger-alone", func(b *testing.B) {
		b.SetBytes(size)
		for i := 0; i < b.N; i++ {
			db, err := openBadger(dbOptions(filepath.Join(dir, "db"), scratchStore(dir)))
			require.NoError(b, err)
			require.NoError(b, db.Close())
		}
	})
}
