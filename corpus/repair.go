package corpus

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
	"github.com/dgraph-io/badger/v4/table"
	"github.com/dgraph-io/badger/v4/y"

	"github.com/modelfuzz/modelfuzz/record"
)

// Repair: a corpus whose database cannot be opened (a table file cut short
// or overwritten, a MANIFEST lost) is rebuilt from what can still be read
// and verified: every block of every table file (listed by the MANIFEST
// or not) whose checksum matches, and the memtable logs (the commits not
// yet in a table). The newest version of each key among them goes into a
// new database, which replaces the old one; the old one is kept next to
// it, as db.damaged, for whoever wants to look. An entry of a block whose
// checksum does not match cannot be told intact, so the block is lost as
// a whole; what it held is said by key range, and a record found in an
// older version elsewhere is said to be back at that version. The counters
// are raised to what every version of them and the surviving records
// need, so that a continued campaign never reuses an id.

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
	// MarkerRestored: the corpus had lost its marker file (MODELFUZZ) and
	// it was written again.
	MarkerRestored bool
	// Problem is what was wrong with the database, as the commands said
	// ("" when it was not a DamagedError).
	Problem string
	// Damaged are the table files that could not be read whole (db/NAME:
	// what was lost).
	Damaged []string
	Tables  int // table files read, whole or in part
	Entries int // entries read from them
	Logged  int // entries read back from the memtable logs
	Lost    int // entries lost: in blocks that fail their checksum, or in the value log
	// LostTables are the table files lost whole (their index unreadable,
	// or missing): how many records they held cannot be known.
	LostTables []string
	LogNote    string // why the memtable logs could not be read, if so
	Kept       string // where the old database was moved

	Inputs, Bugs, Stats, Coverage int
	MissingInputs                 []uint64 // ids below the highest known one that are not there
	MissingBugs                   []string
	// Older are the records kept at an older version than one that may
	// have been lost (in a block or table that could not be read): "B1",
	// "the campaign's settings". Inputs and stats snapshots are written
	// once: one lost is missing, never older.
	Older           []string
	Campaign        bool // the campaign's settings survived
	CountersRebuilt bool // the counters were lost or behind, and rebuilt
}

type entry struct {
	version uint64
	value   []byte
	deleted bool
}

// lostRange is a range of keys (inclusive) some entries of which, up to
// version, could not be read; all is every key (a table with an
// unreadable index, or missing).
type lostRange struct {
	lo, hi  []byte
	version uint64
	all     bool
}

// Repair rebuilds the corpus in dir from what can be read (see above).
func Repair(dir string) (*RepairReport, error) {
	st, err := os.Stat(dir)
	switch {
	case os.IsNotExist(err):
		return nil, fmt.Errorf("corpus %s: no such directory", dir)
	case err != nil:
		return nil, fmt.Errorf("corpus %s: %s", dir, errText(err))
	case !st.IsDir():
		return nil, fmt.Errorf("corpus %s: not a directory", dir)
	}
	rep := &RepairReport{Dir: dir}
	if err := checkMarker(dir, true); err != nil {
		var me *MarkerError
		if !errors.As(err, &me) {
			return nil, err
		}
		rep.MarkerRestored = true
	}
	if err := checkDBDir(dir); err != nil {
		return nil, err
	}
	db := filepath.Join(dir, "db")
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
	if rep.MarkerRestored {
		if err := os.WriteFile(filepath.Join(dir, markerFile), []byte(marker), 0o644); err != nil {
			return nil, fmt.Errorf("corpus %s: cannot write %s: %s", dir, markerFile, errText(err))
		}
	}
	checkErr := checkDatabase(dir, db)
	if checkErr == nil {
		// Opened from a copy: a sound corpus is left as it is, byte for
		// byte (badger rotates its logs at every open).
		if s, err := openSnapshot(dir, ""); err == nil {
			s.Close()
			rep.Nothing = true
			return rep, nil
		}
	}
	var de *DamagedError
	if errors.As(checkErr, &de) {
		rep.Problem = de.What
	}

	latest := map[string]entry{}
	var counters record.Counters // the highest of every version of them
	keep := func(key []byte, e entry) {
		if bytes.HasPrefix(key, []byte(badgerPrefix)) {
			return
		}
		if bytes.Equal(key, keyCounters) && !e.deleted {
			var c record.Counters
			if json.Unmarshal(e.value, &c) == nil {
				counters = maxCounters(counters, c)
			}
		}
		if old, ok := latest[string(key)]; !ok || e.version > old.version {
			latest[string(key)] = e
		}
	}
	names, err := tableFiles(db)
	if err != nil {
		return nil, fmt.Errorf("corpus %s: %s", dir, errText(err))
	}
	var lost []lostRange
	for _, name := range names {
		tr := salvageTable(filepath.Join(db, name), keep)
		if tr.unreadable != "" {
			rep.Damaged = append(rep.Damaged, fmt.Sprintf("%s: %s: every entry lost", filepath.Join("db", name), tr.unreadable))
			rep.LostTables = append(rep.LostTables, filepath.Join("db", name))
			lost = append(lost, lostRange{all: true})
			continue
		}
		rep.Tables++
		rep.Entries += tr.read
		rep.Lost += tr.lost + tr.pointers
		lost = append(lost, tr.ranges...)
		switch {
		case tr.lostBlocks > 0:
			rep.Damaged = append(rep.Damaged, fmt.Sprintf("%s: %d of its %d blocks are damaged (their checksum does not match, or they do not decompress): %d entries lost, %d read",
				filepath.Join("db", name), tr.lostBlocks, tr.blocks, tr.lost, tr.read))
		case tr.pointers > 0:
			rep.Damaged = append(rep.Damaged, fmt.Sprintf("%s: %d entries whose value is in the value log are lost", filepath.Join("db", name), tr.pointers))
		}
	}
	for _, name := range missingTables(db) {
		rep.Damaged = append(rep.Damaged, fmt.Sprintf("%s: listed by db/MANIFEST, missing: every entry lost", filepath.Join("db", name)))
		rep.LostTables = append(rep.LostTables, filepath.Join("db", name))
		lost = append(lost, lostRange{all: true})
	}
	rep.Logged, rep.LogNote = readLogs(db, keep)
	for k, e := range latest {
		if e.deleted {
			continue
		}
		for _, r := range lost {
			if r.all || (bytes.Compare([]byte(k), r.lo) >= 0 && bytes.Compare([]byte(k), r.hi) <= 0 && e.version < r.version) {
				if what := recordName([]byte(k)); what != "" && !slices.Contains(rep.Older, what) {
					rep.Older = append(rep.Older, what)
				}
				break
			}
		}
	}
	slices.SortFunc(rep.Older, func(a, b string) int {
		if len(a) != len(b) {
			return len(a) - len(b) // B2 before B10
		}
		return strings.Compare(a, b)
	})

	// The new database, next to the old one, then swapped in.
	fresh := filepath.Join(dir, "db.repaired")
	if err := os.RemoveAll(fresh); err != nil {
		return nil, fmt.Errorf("corpus %s: %s", dir, errText(err))
	}
	ndb, err := openBadger(dbOptions(fresh, scratchStore(dir)))
	if err != nil {
		return nil, fmt.Errorf("corpus %s: cannot create the repaired database: %s", dir, dbProblem(err))
	}
	wb := ndb.NewWriteBatch()
	for k, e := range latest {
		if e.deleted {
			continue
		}
		if err := wb.Set([]byte(k), e.value); err != nil {
			wb.Cancel()
			ndb.Close()
			return nil, fmt.Errorf("corpus %s: writing the repaired database: %s", dir, dbProblem(err))
		}
	}
	if err := wb.Flush(); err != nil {
		ndb.Close()
		return nil, fmt.Errorf("corpus %s: writing the repaired database: %s", dir, dbProblem(err))
	}
	if err := ndb.Close(); err != nil {
		return nil, fmt.Errorf("corpus %s: writing the repaired database: %s", dir, dbProblem(err))
	}
	rep.Kept = filepath.Join(dir, "db.damaged")
	for i := 2; ; i++ {
		if _, err := os.Stat(rep.Kept); errors.Is(err, os.ErrNotExist) {
			break
		}
		rep.Kept = filepath.Join(dir, "db.damaged."+strconv.Itoa(i))
	}
	if err := os.Rename(db, rep.Kept); err != nil {
		return nil, fmt.Errorf("corpus %s: %s", dir, errText(err))
	}
	if err := os.Rename(fresh, db); err != nil {
		return nil, fmt.Errorf("corpus %s: %s (the old database is in %s, the repaired one in %s)", dir, errText(err), rep.Kept, fresh)
	}
	releaseLock(lock)
	locked = false
	if err := rep.check(dir, counters); err != nil {
		return nil, err
	}
	return rep, nil
}

// maxCounters is the highest of each counter of a and b.
func maxCounters(a, b record.Counters) record.Counters {
	a.Iterations = max(a.Iterations, b.Iterations)
	a.Interesting = max(a.Interesting, b.Interesting)
	a.Failures = max(a.Failures, b.Failures)
	a.Divergences = max(a.Divergences, b.Divergences)
	a.HarnessErrs = max(a.HarnessErrs, b.HarnessErrs)
	a.RunSeconds = max(a.RunSeconds, b.RunSeconds)
	a.Sessions = max(a.Sessions, b.Sessions)
	a.NextInputID = max(a.NextInputID, b.NextInputID)
	a.NextBugID = max(a.NextBugID, b.NextBugID)
	a.NextStats = max(a.NextStats, b.NextStats)
	return a
}

// recordName names the record a key holds when it is one that is written
// again (a bug's hits and minimized input, the settings at every
// session), for people; "" for the rest: inputs and stats snapshots are
// written once, the counters are rebuilt.
func recordName(k []byte) string {
	switch {
	case bytes.Equal(k, keyCampaign):
		return "the campaign's settings"
	case bytes.HasPrefix(k, prefBug) && len(k) == len(prefBug)+4:
		return "B" + strconv.FormatUint(uint64(binary.BigEndian.Uint32(k[len(prefBug):])), 10)
	}
	return ""
}

// tableRead is what salvageTable read of a table file.
type tableRead struct {
	unreadable         string // why the table does not open at all
	blocks, lostBlocks int
	read, lost         int // entries read, and lost in blocks that fail their checksum
	pointers           int // entries read whose value was in the value log: lost
	ranges             []lostRange
}

// salvageTable passes every entry of the table file at path that can be
// verified to keep: block by block, each block read with its checksum
// checked, skipping the blocks that fail.
func salvageTable(path string, keep func([]byte, entry)) (tr tableRead) {
	t, err := openTable(path, options.OnBlockRead)
	if err != nil {
		tr.unreadable = err.Error()
		return tr
	}
	defer t.DecrRef()
	// The first key of every block, from the table's index.
	bases := t.KeySplits(math.MaxInt32, nil)
	tr.blocks = len(bases)
	it := t.NewIterator(0)
	defer it.Close()
	for i, base := range bases {
		var next []byte
		if i+1 < len(bases) {
			next = []byte(bases[i+1])
		}
		it.Seek([]byte(base))
		if !it.Valid() || !bytes.Equal(it.Key(), []byte(base)) {
			tr.lostBlocks++
			hi := y.ParseKey(t.Biggest())
			if next != nil {
				hi = y.ParseKey(next)
			}
			tr.ranges = append(tr.ranges, lostRange{lo: y.ParseKey([]byte(base)), hi: append([]byte(nil), hi...), version: t.MaxVersion()})
			continue
		}
		for ; it.Valid() && (next == nil || y.CompareKeys(it.Key(), next) < 0); it.Next() {
			k := it.Key()
			v := it.ValueCopy()
			tr.read++
			e := entry{version: y.ParseTs(k), deleted: v.Meta&metaDelete != 0}
			if v.Meta&metaValuePointer != 0 {
				tr.pointers++
				continue
			}
			if !e.deleted {
				e.value = v.Value
			}
			keep(y.ParseKey(k), e)
		}
	}
	tr.lost = int(t.KeyCount()) - tr.read
	if tr.lost < 0 {
		tr.lost = 0
	}
	return tr
}

// missingTables lists the table files the MANIFEST of db lists and the
// directory does not hold (as far as the MANIFEST can be read).
func missingTables(db string) []string {
	f, err := os.Open(filepath.Join(db, "MANIFEST"))
	if err != nil {
		return nil
	}
	defer f.Close()
	mf, _, _ := replayManifest(f, dbOptions(db, nil))
	var out []string
	for id := range mf.Tables {
		name := table.IDToFilename(id)
		if _, err := os.Stat(filepath.Join(db, name)); os.IsNotExist(err) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// readLogs reads back the memtable logs of the database in db: copied into
// a temporary directory with nothing else, badger replays them into its
// memtables. It returns the entries read, or why they could not be.
func readLogs(db string, keep func([]byte, entry)) (n int, note string) {
	mems, err := memLogs(db)
	if err != nil || len(mems) == 0 {
		return 0, ""
	}
	tmp, err := os.MkdirTemp("", "modelfuzz-logs-")
	if err != nil {
		return 0, errText(err)
	}
	defer os.RemoveAll(tmp)
	for name := range mems {
		if err := copyFile(filepath.Join(db, name), filepath.Join(tmp, name)); err != nil {
			return 0, errText(err)
		}
	}
	ldb, err := openBadger(dbOptions(tmp, scratchStore(tmp)))
	if err != nil {
		return 0, dbProblem(err)
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
		return n, dbProblem(err)
	}
	return n, ""
}

// check opens the repaired corpus, counts what it holds, finds the ids
// missing below the highest ones, and raises the counters to what the
// records need.
func (rep *RepairReport) check(dir string, seen record.Counters) error {
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
	want := maxCounters(c, seen)
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
		want.NextStats = max(want.NextStats, st.Seq) // the seq of the last snapshot stored
		want.Iterations = max(want.Iterations, st.Iterations)
		if st.RunSeconds > want.RunSeconds+0.001 { // snapshots round to the millisecond
			want.RunSeconds = st.RunSeconds
		}
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
