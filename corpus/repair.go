package corpus

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/y"

	"github.com/modelfuzz/modelfuzz/record"
)

// Repair: a corpus whose database cannot be opened (a table file cut short,
// a MANIFEST lost) is rebuilt from what can still be read: every table that
// opens with its checksums intact, and the memtable logs (the commits not
// yet in a table). The newest version of each key among them goes into a
// new database, which replaces the old one; the old one is kept next to
// it, as db.damaged, for whoever wants to look. The counters are raised to
// what the surviving records need, so that a continued campaign never
// reuses an id.

// Badger's entry meta bits (its structs.go; not exported): a deletion, and
// a value kept in the value log instead of the table.
const (
	metaDelete       = 1 << 0
	metaValuePointer = 1 << 1
)

// RepairReport says what Repair did and what was lost.
type RepairReport struct {
	Dir string
	// Nothing is set when the database opened as it is: nothing was done.
	Nothing bool
	// Damaged are the table files that could not be read (db/NAME: why);
	// their entries are lost unless a newer version was elsewhere.
	Damaged []string
	Tables  int    // tables read
	Logged  int    // entries read back from the memtable logs
	Lost    int    // entries whose value was in the value log and could not be read
	LogNote string // why the memtable logs could not be read, if so
	Kept    string // where the old database was moved

	Inputs, Bugs, Stats, Coverage int
	MissingInputs                 []uint64 // ids below the highest stored one that are not there
	MissingBugs                   []string
	Campaign                      bool // the campaign's settings survived
	CountersRebuilt               bool // the counters were lost or behind, and rebuilt
}

type entry struct {
	version uint64
	value   []byte
	deleted bool
}

// Repair rebuilds the corpus in dir from what can be read (see above).
func Repair(dir string) (*RepairReport, error) {
	if err := checkMarker(dir, true); err != nil {
		return nil, err
	}
	db := filepath.Join(dir, "db")
	if _, err := os.Stat(db); err != nil {
		return nil, fmt.Errorf("corpus %s: no database to repair: %v", dir, err)
	}
	lock, err := acquireLock(dir)
	if err != nil {
		return nil, err
	}
	locked := true
	defer func() {
		if locked {
			releaseLock(lock)
		}
	}()
	rep := &RepairReport{Dir: dir}
	if err := removeEmptyLogs(db); err != nil {
		return nil, fmt.Errorf("corpus %s: %v", dir, err)
	}
	if checkTables(dir, db, true) == nil {
		if bdb, err := openBadger(dbOptions(db, scratchStore(dir))); err == nil {
			bdb.Close()
			rep.Nothing = true
			return rep, nil
		}
	}

	latest := map[string]entry{}
	keep := func(key []byte, e entry) {
		if bytes.HasPrefix(key, []byte("!badger!")) {
			return
		}
		if old, ok := latest[string(key)]; !ok || e.version > old.version {
			latest[string(key)] = e
		}
	}
	names, err := liveTables(db)
	if err != nil {
		return nil, fmt.Errorf("corpus %s: %v", dir, err)
	}
	for _, name := range names {
		n, lost, err := readTable(filepath.Join(db, name), keep)
		if err != nil {
			rep.Damaged = append(rep.Damaged, filepath.Join("db", name)+": "+err.Error())
			continue
		}
		rep.Tables++
		rep.Lost += lost
		_ = n
	}
	rep.Logged, rep.LogNote = readLogs(dir, db, keep)

	// The new database, next to the old one, then swapped in.
	fresh := filepath.Join(dir, "db.repaired")
	if err := os.RemoveAll(fresh); err != nil {
		return nil, fmt.Errorf("corpus %s: %v", dir, err)
	}
	ndb, err := openBadger(dbOptions(fresh, scratchStore(dir)))
	if err != nil {
		return nil, fmt.Errorf("corpus %s: cannot create the repaired database: %s", dir, oneLine(err))
	}
	wb := ndb.NewWriteBatch()
	for k, e := range latest {
		if e.deleted {
			continue
		}
		if err := wb.Set([]byte(k), e.value); err != nil {
			wb.Cancel()
			ndb.Close()
			return nil, fmt.Errorf("corpus %s: writing the repaired database: %v", dir, err)
		}
	}
	if err := wb.Flush(); err != nil {
		ndb.Close()
		return nil, fmt.Errorf("corpus %s: writing the repaired database: %v", dir, err)
	}
	if err := ndb.Close(); err != nil {
		return nil, fmt.Errorf("corpus %s: writing the repaired database: %v", dir, err)
	}
	rep.Kept = filepath.Join(dir, "db.damaged")
	for i := 2; ; i++ {
		if _, err := os.Stat(rep.Kept); errors.Is(err, os.ErrNotExist) {
			break
		}
		rep.Kept = filepath.Join(dir, "db.damaged."+strconv.Itoa(i))
	}
	if err := os.Rename(db, rep.Kept); err != nil {
		return nil, fmt.Errorf("corpus %s: %v", dir, err)
	}
	if err := os.Rename(fresh, db); err != nil {
		return nil, fmt.Errorf("corpus %s: %v (the old database is in %s, the repaired one in %s)", dir, err, rep.Kept, fresh)
	}
	releaseLock(lock)
	locked = false
	if err := rep.check(dir); err != nil {
		return nil, err
	}
	return rep, nil
}

// readTable passes every entry of a table file to keep; it returns the
// number of entries and of those whose value was in the value log.
func readTable(path string, keep func([]byte, entry)) (n, lost int, err error) {
	t, err := openTable(path, true)
	if err != nil {
		return 0, 0, err
	}
	defer t.DecrRef()
	it := t.NewIterator(0)
	defer it.Close()
	for it.Rewind(); it.Valid(); it.Next() {
		k := it.Key()
		v := it.ValueCopy()
		n++
		e := entry{version: y.ParseTs(k), deleted: v.Meta&metaDelete != 0}
		if v.Meta&metaValuePointer != 0 {
			lost++
			continue
		}
		if !e.deleted {
			e.value = v.Value
		}
		keep(y.ParseKey(k), e)
	}
	return n, lost, nil
}

// readLogs reads back the memtable logs of the database in db: opened in a
// temporary directory with nothing else, badger replays them into its
// memtables.
func readLogs(dir, db string, keep func([]byte, entry)) (n int, note string) {
	mems, err := memLogs(db)
	if err != nil || len(mems) == 0 {
		return 0, ""
	}
	tmp := filepath.Join(dir, "db.logs")
	if err := os.RemoveAll(tmp); err != nil {
		return 0, err.Error()
	}
	defer os.RemoveAll(tmp)
	if err := os.Mkdir(tmp, 0o755); err != nil {
		return 0, err.Error()
	}
	for name := range mems {
		if err := copyFile(filepath.Join(db, name), filepath.Join(tmp, name)); err != nil {
			return 0, err.Error()
		}
	}
	ldb, err := openBadger(dbOptions(tmp, scratchStore(dir)))
	if err != nil {
		return 0, oneLine(err)
	}
	defer ldb.Close()
	err = ldb.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{AllVersions: true})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			item := it.Item()
			e := entry{version: item.Version(), deleted: item.IsDeletedOrExpired()}
			if !e.deleted {
				v, err := item.ValueCopy(nil)
				if err != nil {
					return err
				}
				e.value = v
			}
			n++
			keep(item.KeyCopy(nil), e)
		}
		return nil
	})
	if err != nil {
		return n, oneLine(err)
	}
	return n, ""
}

// check opens the repaired corpus, counts what it holds, finds the ids
// missing below the highest ones, and raises the counters to what the
// records need.
func (rep *RepairReport) check(dir string) error {
	s, err := Open(dir, Options{MustExist: true})
	if err != nil {
		return fmt.Errorf("corpus %s: the repaired database does not open: %v", dir, err)
	}
	defer s.Close()
	snap, err := s.Load(-1)
	if err != nil {
		return err
	}
	stats, err := s.Stats()
	if err != nil {
		return err
	}
	var camp json.RawMessage
	rep.Campaign, err = s.Campaign(&camp)
	if err != nil {
		return err
	}
	var hasCounters record.Counters
	countersKept, err := s.get(keyCounters, &hasCounters)
	if err != nil {
		return err
	}
	c := snap.Counters
	want := c
	rep.Inputs, rep.Bugs, rep.Stats = len(snap.Inputs), len(snap.Bugs), len(stats)
	for _, items := range snap.Coverage {
		rep.Coverage += len(items)
	}
	present := map[uint64]bool{}
	var fuzzed int64
	for _, in := range snap.Inputs {
		present[in.ID] = true
		want.NextInputID = max(want.NextInputID, in.ID+1)
		want.Iterations = max(want.Iterations, in.Iteration)
		if in.Source == "fuzz" {
			fuzzed++
		}
	}
	want.Interesting = max(want.Interesting, fuzzed)
	for id := uint64(1); id < want.NextInputID; id++ {
		if !present[id] {
			rep.MissingInputs = append(rep.MissingInputs, id)
		}
	}
	bugs := map[int]bool{}
	for _, b := range snap.Bugs {
		n, err := strconv.Atoi(strings.TrimPrefix(b.ID, "B"))
		if err != nil {
			continue
		}
		bugs[n] = true
		want.NextBugID = max(want.NextBugID, n+1)
		want.Iterations = max(want.Iterations, b.LastIteration)
	}
	for n := 1; n < want.NextBugID; n++ {
		if !bugs[n] {
			rep.MissingBugs = append(rep.MissingBugs, "B"+strconv.Itoa(n))
		}
	}
	for _, st := range stats {
		want.NextStats = max(want.NextStats, st.Seq+1)
		want.Iterations = max(want.Iterations, st.Iterations)
		want.RunSeconds = max(want.RunSeconds, st.RunSeconds)
		want.Sessions = max(want.Sessions, st.Session)
		want.Failures = max(want.Failures, st.Failures)
	}
	if want != c || !countersKept {
		rep.CountersRebuilt = true
		v, err := json.Marshal(want)
		if err != nil {
			return err
		}
		if err := s.update(func(txn *badger.Txn) error { return txn.Set(keyCounters, v) }); err != nil {
			return err
		}
	}
	return nil
}

// scratchStore receives the log of a database Repair opens on the side.
func scratchStore(dir string) *Store {
	s := &Store{dir: dir}
	s.w.faulted, s.w.flushErr = make(chan struct{}), make(chan struct{})
	return s
}
