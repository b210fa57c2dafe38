package corpus

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
	"github.com/tidwall/gjson"

	"github.com/modelfuzz/modelfuzz/record"
	"github.com/modelfuzz/modelfuzz/schedule"
)

const (
	markerFile = "MODELFUZZ"
	marker     = "modelfuzz corpus, format 1\n"
	lockFile   = "modelfuzz.lock"
)

var (
	keyCampaign = []byte("m/campaign")
	keyCounters = []byte("m/counters")
	prefInput   = []byte("i/")
	prefCov     = []byte("c/")
	prefBug     = []byte("b/")
	prefPending = []byte("p/")
	prefStats   = []byte("s/")
	prefLearned = []byte("q/")
)

// Options for Open.
type Options struct {
	// Fresh deletes an existing corpus in the directory first.
	Fresh bool
	// MustExist refuses to create a new corpus (for read-only commands).
	MustExist bool
	// MinFree overrides the free space writes need (0: MinFree).
	MinFree uint64
	// ReadOnly is for commands that only read (with MustExist): the
	// corpus is read from a snapshot, a copy of its database taken now
	// (snapshot.go), without its lock, so that it works on a corpus a
	// running campaign holds or nobody may write, and never keeps a
	// campaign from starting; writes to such a store are refused.
	ReadOnly bool
}

// Store is an open corpus directory.
type Store struct {
	dir     string
	db      *badger.DB
	lock    *os.File
	minFree uint64
	w       watch
	// snapshot is the temporary directory of a read-only snapshot (see
	// Options.ReadOnly), removed by Close; readOnly says what the user
	// should know about it ("" : nothing).
	snapshot, readOnly string
}

// MinFree is the free space a corpus needs on its file system to accept
// writes. The database writes through memory-mapped files; a write that
// finds the disk full there kills the process (SIGBUS) and leaves files
// that cannot be read back until space is freed, so the store refuses to
// write before that can happen: it checks the free space at Open, at
// commits and between them (watch.go).
const MinFree = 256 << 20

// ErrDiskFull is returned (wrapped) when the corpus's disk is almost full.
var ErrDiskFull = errors.New("disk almost full")

var (
	_ record.Store         = (*Store)(nil)
	_ record.FaultReporter = (*Store)(nil)
)

// Open opens (or creates) the corpus in dir and locks it for this process.
func Open(dir string, opt Options) (*Store, error) {
	if dir == "" {
		return nil, errors.New("corpus: no directory given (--corpus DIR)")
	}
	st, err := os.Stat(dir)
	switch {
	case err == nil && !st.IsDir():
		return nil, fmt.Errorf("corpus %s: not a directory", dir)
	case err != nil && !os.IsNotExist(err):
		return nil, fmt.Errorf("corpus %s: %v", dir, err)
	case err != nil && opt.MustExist:
		return nil, fmt.Errorf("corpus %s: no such directory", dir)
	}
	exists := err == nil
	minFree := opt.MinFree
	if minFree == 0 {
		minFree = MinFree
	}
	marked := false
	if exists {
		if err := checkMarker(dir, opt.MustExist); err != nil {
			return nil, err
		}
		marked = hasMarker(dir)
	}
	if marked && !opt.Fresh {
		if err := checkDBDir(dir); err != nil {
			return nil, err
		}
	}
	if opt.ReadOnly && opt.MustExist && exists {
		return openSnapshot(dir, snapshotReason(dir))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("corpus %s: %s", dir, errText(err))
	}
	lock, err := acquireLock(dir)
	if err != nil {
		return nil, err
	}
	if opt.Fresh && exists {
		if err := clear(dir); err != nil {
			releaseLock(lock)
			return nil, err
		}
	}
	s := &Store{dir: dir, lock: lock, minFree: minFree}
	if !opt.MustExist {
		// A campaign about to write; read-only commands may read a corpus
		// on a full disk (their rare writes are checked at commit).
		if fe := s.fsFault(); fe != nil {
			releaseLock(lock)
			return nil, fe
		}
	}
	bo := dbOptions(filepath.Join(dir, "db"), s)
	s.w.faulted, s.w.flushErr = make(chan struct{}), make(chan struct{}) // the logger may report during the open
	if marked && !opt.Fresh {
		// What badger would read as older data, or throw away.
		if err := checkDatabase(dir, bo.Dir); err != nil {
			releaseLock(lock)
			return nil, err
		}
	}
	if err := removeEmptyLogs(bo.Dir); err != nil {
		releaseLock(lock)
		return nil, fmt.Errorf("corpus %s: %v", dir, err)
	}
	db, err := openBadger(bo)
	if err != nil {
		releaseLock(lock)
		return nil, openFailed(dir, err)
	}
	s.db = db
	// The marker goes in once the database exists: a marked corpus
	// without its database lost it.
	if !marked {
		if err := os.WriteFile(filepath.Join(dir, markerFile), []byte(marker), 0o644); err != nil {
			db.Close()
			releaseLock(lock)
			return nil, fmt.Errorf("corpus %s: %s", dir, errText(err))
		}
	}
	if err := s.startWatch(); err != nil {
		db.Close()
		releaseLock(lock)
		return nil, err
	}
	return s, nil
}

// openFailed words a database that passed checkDatabase and still does
// not open.
func openFailed(dir string, err error) error {
	return fmt.Errorf("corpus %s: its database does not open (%s); \"modelfuzz corpus repair %s\" keeps what can still be read", dir, dbProblem(err), dir)
}

// dbProblem words an error of badger's in ours, as far as it can be
// placed; the rest is said as "an unexpected error" with badger's first
// line, cut.
func dbProblem(err error) string {
	s := oneLine(err)
	switch {
	case strings.Contains(s, "checksum"):
		return "a checksum does not match"
	case strings.Contains(s, "vlog"), strings.Contains(s, "value log"):
		return "a value log file cannot be read"
	case strings.Contains(s, "MANIFEST"), strings.Contains(s, "manifest"):
		return "its MANIFEST cannot be read"
	case strings.Contains(s, "Encryption"), strings.Contains(s, "key registry"), strings.Contains(s, "datakey"):
		return "its key registry cannot be read"
	case strings.Contains(s, "no space left"):
		return "the disk is full"
	case strings.Contains(s, "permission denied"):
		return "permission denied"
	}
	return "the database's files are not what it wrote"
}

// hasMarker reports whether dir holds the marker file of a corpus.
func hasMarker(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, markerFile))
	return err == nil
}

// checkDBDir checks that a marked corpus still has its database directory.
func checkDBDir(dir string) error {
	db := filepath.Join(dir, "db")
	fi, err := os.Stat(db)
	switch {
	case os.IsNotExist(err):
		return fmt.Errorf("corpus %s: its database, db/, is missing: its records are gone and there is nothing to repair; \"modelfuzz run --fresh --corpus %s\" starts a new campaign in it", dir, dir)
	case err != nil:
		return fmt.Errorf("corpus %s: cannot read its database, db/: %s", dir, errText(err))
	case !fi.IsDir():
		return fmt.Errorf("corpus %s: db is not a directory, as the corpus's database must be; \"modelfuzz run --fresh --corpus %s\" starts a new campaign in it", dir, dir)
	}
	entries, err := os.ReadDir(db)
	if err != nil {
		return fmt.Errorf("corpus %s: cannot read its database, db/: %s", dir, errText(err))
	}
	if len(entries) == 0 {
		return fmt.Errorf("corpus %s: its database, db/, is empty: its records are gone and there is nothing to repair; \"modelfuzz run --fresh --corpus %s\" starts a new campaign in it", dir, dir)
	}
	return nil
}

// dbOptions are the database's options; s receives its log.
func dbOptions(path string, s *Store) badger.Options {
	return badger.DefaultOptions(path).
		WithLogger(dbLogger{s}).
		WithSyncWrites(false).
		// Memory: a memtable's arena and the builder that flushes it are
		// allocated whole, so the memtable size sets the database's peaks
		// (16 MiB tables swung the heap by 100 MiB; docs/benchmarks.md).
		WithMemTableSize(8 << 20).
		// Small tables keep compactions' table builders small (2 MiB
		// tables held 200 MiB of builders at times). Values stay in the
		// LSM tree, compressed: badger maps its value log files whole, so
		// inputs there made the process's resident memory grow with the
		// corpus.
		WithBaseTableSize(1 << 20).
		WithNumMemtables(2).
		WithBlockCacheSize(8 << 20).
		WithValueLogFileSize(64 << 20).
		WithNumCompactors(2).
		WithNumGoroutines(2).
		WithMetricsEnabled(false).
		// Every block read is checked against its checksum, every value
		// read from the value log too (Open has checked every table
		// whole first: integrity.go).
		WithChecksumVerificationMode(options.OnBlockRead).
		WithVerifyValueChecksum(true).
		WithDetectConflicts(false).
		WithCompactL0OnClose(false)
}

// removeEmptyLogs deletes the empty memtable and value log files of a
// database directory. A process killed between creating such a file and
// sizing it leaves it empty; it holds nothing, but badger (v4.9.6) refuses
// to open a database that has one ("while opening fid: N err: Create a new
// file", dgraph-io/badger#2207), so one SIGKILL at the wrong moment would
// lock the user out of the corpus.
func removeEmptyLogs(db string) error {
	entries, err := os.ReadDir(db)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return err
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || (!strings.HasSuffix(name, ".mem") && !strings.HasSuffix(name, ".vlog")) {
			continue
		}
		info, err := e.Info()
		if err != nil || info.Size() != 0 {
			continue
		}
		if err := os.Remove(filepath.Join(db, name)); err != nil {
			return fmt.Errorf("cannot remove the empty log file %s left by a crash: %v", name, err)
		}
	}
	return nil
}

// openBadger opens badger, turning a panic inside it (which some corrupted
// files provoke) into an error. A failed open leaves nothing behind: the
// files it created (its LOCK, a new memtable's 16 MiB log) are removed.
func openBadger(bo badger.Options) (db *badger.DB, err error) {
	before := map[string]bool{}
	if entries, rerr := os.ReadDir(bo.Dir); rerr == nil {
		for _, e := range entries {
			before[e.Name()] = true
		}
	}
	defer func() {
		if r := recover(); r != nil {
			db, err = nil, fmt.Errorf("%v", r)
		}
		if err != nil {
			entries, _ := os.ReadDir(bo.Dir)
			for _, e := range entries {
				if !before[e.Name()] && !e.IsDir() {
					os.Remove(filepath.Join(bo.Dir, e.Name()))
				}
			}
		}
	}()
	return badger.Open(bo)
}

func oneLine(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// checkMarker refuses directories that hold something other than a corpus.
func checkMarker(dir string, mustExist bool) error {
	b, err := os.ReadFile(filepath.Join(dir, markerFile))
	if err == nil {
		if string(b) != marker {
			return fmt.Errorf("corpus %s: unknown corpus format %q in %s (this modelfuzz reads %q)", dir, strings.TrimSpace(string(b)), markerFile, strings.TrimSpace(marker))
		}
		return nil
	}
	entries, rerr := os.ReadDir(dir)
	if rerr != nil {
		return fmt.Errorf("corpus %s: %v", dir, rerr)
	}
	if len(entries) == 0 && !mustExist {
		return nil
	}
	if len(entries) == 0 {
		return fmt.Errorf("corpus %s: empty directory, not a corpus", dir)
	}
	if fi, err := os.Stat(filepath.Join(dir, "db", "MANIFEST")); err == nil && !fi.IsDir() {
		return &MarkerError{Dir: dir}
	}
	return fmt.Errorf("corpus %s: directory is not empty and is not a modelfuzz corpus (no %s file); refusing to use it", dir, markerFile)
}

// MarkerError is a corpus that lost its marker file but holds a database:
// Repair restores the marker.
type MarkerError struct{ Dir string }

func (e *MarkerError) Error() string {
	return fmt.Sprintf("corpus %s: %s, the file that marks a corpus, is missing, though db/ holds a database; \"modelfuzz corpus repair %s\" restores it", e.Dir, markerFile, e.Dir)
}

func acquireLock(dir string) (*os.File, error) {
	path := filepath.Join(dir, lockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("corpus %s: cannot create lock file: %v", dir, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		b, _ := os.ReadFile(path)
		f.Close()
		pid := strings.TrimSpace(string(b))
		if pid == "" {
			pid = "unknown"
		}
		return nil, &lockedError{dir: dir, pid: pid}
	}
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return f, nil
}

// recordError is a stored record that could not be read: what it is and
// why, in our words.
type badRecord struct {
	what string
	err  error
}

func (e *badRecord) Error() string { return e.what + ": " + e.err.Error() }

func recordError(what string, err error) error { return &badRecord{what, err} }

// readFailed words an error reading the database of the corpus in dir
// (what: the record, "" when the error says): a record that is not what
// modelfuzz wrote, or badger's error in ours; either is damage.
func readFailed(dir, what string, err error) error {
	var re *badRecord
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &re) && (errors.As(re.err, &se) || errors.As(re.err, &te)):
		what, err = re.what, errors.New("its record is not JSON as modelfuzz writes it")
	case errors.As(err, &re):
		what, err = re.what, re.err
	case errors.As(err, &se), errors.As(err, &te):
		err = errors.New("its record is not JSON as modelfuzz writes it")
	default:
		err = errors.New(dbProblem(err))
	}
	if what != "" {
		what += ": "
	}
	return fmt.Errorf("corpus %s: cannot read %s%v; \"modelfuzz corpus repair %s\" keeps what can still be read", dir, what, err, dir)
}

// CheckUnlocked reports, as the error Open would, whether another process
// holds the corpus in dir (nil when none does, or dir holds no lock).
func CheckUnlocked(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, lockFile)); err != nil {
		return nil
	}
	lock, err := acquireLock(dir)
	if err != nil {
		var le *lockedError
		if errors.As(err, &le) {
			return err
		}
		return nil // it cannot be taken for another reason: Open says which
	}
	releaseLock(lock)
	return nil
}

// lockedError is the refusal of a corpus another process holds.
type lockedError struct{ dir, pid string }

func (e *lockedError) Error() string {
	return fmt.Sprintf("corpus %s: locked by another modelfuzz process (pid %s)", e.dir, e.pid)
}

func releaseLock(f *os.File) {
	f.Truncate(0)
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	f.Close()
}

// clear removes the database of a corpus directory, keeping the lock.
func clear(dir string) error {
	if err := os.RemoveAll(filepath.Join(dir, "db")); err != nil {
		return fmt.Errorf("corpus %s: cannot clear: %v", dir, err)
	}
	return nil
}

// Dir is the corpus directory.
func (s *Store) Dir() string { return s.dir }

func (s *Store) get(key []byte, v any) (bool, error) {
	var found bool
	err := s.db.View(func(txn *badger.Txn) error {
		it, err := txn.Get(key)
		if errors.Is(err, badger.ErrKeyNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		found = true
		return it.Value(func(b []byte) error { return json.Unmarshal(b, v) })
	})
	if err != nil {
		return false, readFailed(s.dir, string(key), err)
	}
	return found, nil
}

// Campaign reads the campaign's settings into v (a JSON object, written
// once by SetCampaign when the campaign started; package campaign owns its
// fields). It reports false for a corpus that holds no campaign yet.
func (s *Store) Campaign(v any) (bool, error) {
	return s.get(keyCampaign, v)
}

// SetCampaign writes the campaign's settings, as JSON.
func (s *Store) SetCampaign(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return s.update(func(txn *badger.Txn) error { return txn.Set(keyCampaign, b) })
}

func (s *Store) update(fn func(txn *badger.Txn) error) error {
	if err := s.writable(); err != nil {
		return err
	}
	if err := s.Err(); err != nil {
		return err
	}
	if err := s.db.Update(fn); err != nil {
		return fmt.Errorf("corpus %s: write failed: %v", s.dir, err)
	}
	return nil
}

func inputKey(id uint64) []byte { return idKey(prefInput, id) }

func idKey(prefix []byte, id uint64) []byte {
	k := make([]byte, 0, len(prefix)+8)
	k = append(k, prefix...)
	return binary.BigEndian.AppendUint64(k, id)
}

func bugKey(id string) ([]byte, error) {
	var high uint32
	num, ok := strings.CutPrefix(id, "B")
	if !ok {
		num, ok = strings.CutPrefix(id, "K")
		high = 1 << 31 // a known disagreement's record
	}
	n, err := strconv.ParseUint(num, 10, 31)
	if err != nil || !ok {
		return nil, fmt.Errorf("bad bug id %q (want B1, B2, ..., or K1, K2, ... for a known disagreement)", id)
	}
	k := append([]byte(nil), prefBug...)
	return binary.BigEndian.AppendUint32(k, uint32(n)|high), nil
}

func covKey(measure string, item uint64) []byte {
	k := make([]byte, 0, len(prefCov)+len(measure)+9)
	k = append(k, prefCov...)
	k = append(k, measure...)
	k = append(k, '/')
	return binary.BigEndian.AppendUint64(k, item)
}

// Commit implements record.Store: one atomic transaction. It checks the
// directory first (without the probe; at most every commitCheckEvery,
// always for a batch with a stats snapshot) and writes nothing after a
// fault, returning the fault. A write that fails is a fault; a write that
// waits for the database (for a flush that cannot happen) returns the
// fault as soon as it is found.
func (s *Store) Commit(b *record.Batch) error {
	if err := s.writable(); err != nil {
		return err
	}
	if err := s.Err(); err != nil {
		return err
	}
	// Gather the writes, the counters last: a batch too large for one
	// transaction is written in several, and the counters (what a
	// continued campaign trusts) only move once everything else is in.
	var kvs []kv
	for _, in := range b.Inputs {
		kvs = append(kvs, kv{k: inputKey(in.ID), v: encodeRecord(nil, in)})
		if in.Source == "import" {
			kvs = append(kvs, kv{k: idKey(prefPending, in.ID), del: in.Iteration != 0})
		}
	}
	for _, c := range b.Coverage {
		v := binary.BigEndian.AppendUint64(nil, c.InputID)
		for _, item := range c.Items {
			kvs = append(kvs, kv{k: covKey(c.Measure, item), v: v})
		}
	}
	if b.Stats != nil {
		v, err := json.Marshal(b.Stats)
		if err != nil {
			return err
		}
		kvs = append(kvs, kv{k: idKey(prefStats, b.Stats.Seq), v: v})
	}
	for _, bug := range b.Bugs {
		k, err := bugKey(bug.ID)
		if err != nil {
			return err
		}
		v, err := json.Marshal(bug)
		if err != nil {
			return err
		}
		kvs = append(kvs, kv{k: k, v: v})
	}
	for _, l := range b.Learned {
		if l.Table == "" || strings.Contains(l.Table, "/") {
			return fmt.Errorf("learned table %q: want a name without '/'", l.Table)
		}
		k := append(append(append([]byte{}, prefLearned...), l.Table...), '/')
		kvs = append(kvs, kv{k: binary.BigEndian.AppendUint64(k, l.State), v: l.Value})
	}
	if b.Counters != nil {
		v, err := json.Marshal(b.Counters)
		if err != nil {
			return err
		}
		kvs = append(kvs, kv{k: keyCounters, v: v})
	}
	// In a goroutine: a stat on a lost network mount, or a write waiting
	// for a flush, may never return; the watch's timeout then says so.
	now := time.Now().UnixNano()
	check := b.Stats != nil || now-s.w.lastCheck.Load() >= int64(commitCheckEvery)
	if check {
		s.w.lastCheck.Store(now)
	}
	done := make(chan error, 1)
	go func() {
		if check {
			if fe := s.check(false); fe != nil {
				done <- s.fail(fe)
				return
			}
		}
		done <- s.write(kvs)
	}()
	select {
	case err := <-done:
		if _, ok := err.(*FaultError); err != nil && !ok {
			return s.writeFailed("write failed", err)
		}
		return err
	case <-s.w.faulted:
		return s.w.fault
	}
}

// write writes kvs in as few transactions as fit, in order.
func (s *Store) write(kvs []kv) error {
	for len(kvs) > 0 {
		n := 0
		err := s.db.Update(func(txn *badger.Txn) error {
			for n < len(kvs) {
				e := kvs[n]
				var err error
				if e.del {
					err = txn.Delete(e.k)
				} else {
					err = txn.Set(e.k, e.v)
				}
				if errors.Is(err, badger.ErrTxnTooBig) && n > 0 {
					return nil // commit what fits; the rest goes in the next one
				}
				if err != nil {
					return err
				}
				n++
			}
			return nil
		})
		if err != nil {
			return err
		}
		kvs = kvs[n:]
	}
	return nil
}

type kv struct {
	k, v []byte
	del  bool
}

// Load implements record.Store.
func (s *Store) Load(recent int) (*record.Snapshot, error) {
	snap := &record.Snapshot{Coverage: map[string][]uint64{}}
	if _, err := s.get(keyCounters, &snap.Counters); err != nil {
		return nil, err
	}
	err := s.db.View(func(txn *badger.Txn) error {
		var err error
		if recent < 0 {
			err = s.eachInput(txn, func(rec *record.InputRecord) error {
				snap.Inputs = append(snap.Inputs, rec)
				return nil
			})
		} else {
			snap.Inputs, err = s.loadRecent(txn, recent)
		}
		if err != nil {
			return err
		}
		it := txn.NewIterator(badger.IteratorOptions{PrefetchValues: false})
		defer it.Close()
		lastMeasure := ""
		for it.Seek(prefCov); it.ValidForPrefix(prefCov); it.Next() {
			k := it.Item().Key()[len(prefCov):]
			if len(k) < 9 || k[len(k)-9] != '/' {
				return fmt.Errorf("bad coverage key %q", it.Item().Key())
			}
			m := k[:len(k)-9]
			if string(m) != lastMeasure {
				lastMeasure = string(m)
			}
			snap.Coverage[lastMeasure] = append(snap.Coverage[lastMeasure], binary.BigEndian.Uint64(k[len(k)-8:]))
		}
		for it.Seek(prefLearned); it.ValidForPrefix(prefLearned); it.Next() {
			k := it.Item().Key()[len(prefLearned):]
			if len(k) < 10 || k[len(k)-9] != '/' {
				return fmt.Errorf("bad learned key %q", it.Item().Key())
			}
			v, err := it.Item().ValueCopy(nil)
			if err != nil {
				return err
			}
			snap.Learned = append(snap.Learned, record.Learned{Table: string(k[:len(k)-9]), State: binary.BigEndian.Uint64(k[len(k)-8:]), Value: v})
		}
		for it.Seek(prefBug); it.ValidForPrefix(prefBug); it.Next() {
			rec := &record.BugRecord{}
			if err := it.Item().Value(func(b []byte) error { return json.Unmarshal(b, rec) }); err != nil {
				return recordError(fmt.Sprintf("bug B%d", binary.BigEndian.Uint32(it.Item().Key()[len(prefBug):])), err)
			}
			snap.Bugs = append(snap.Bugs, rec)
		}
		return nil
	})
	if err != nil {
		return nil, readFailed(s.dir, "", err)
	}
	return snap, nil
}

// loadRecent reads the pending imports and the most recent `recent` inputs
// kept by fuzzing, in id order, without decoding the rest of the corpus.
func (s *Store) loadRecent(txn *badger.Txn, recent int) ([]*record.InputRecord, error) {
	byID := map[uint64]*record.InputRecord{}
	read := func(id uint64) (*record.InputRecord, error) {
		item, err := txn.Get(inputKey(id))
		if err != nil {
			return nil, recordError(fmt.Sprintf("input %d", id), err)
		}
		rec := &record.InputRecord{}
		if err := item.Value(func(b []byte) error { return decodeInput(b, rec) }); err != nil {
			return nil, recordError(fmt.Sprintf("input %d", id), err)
		}
		return rec, nil
	}
	it := txn.NewIterator(badger.IteratorOptions{PrefetchValues: false})
	for it.Seek(prefPending); it.ValidForPrefix(prefPending); it.Next() {
		id := binary.BigEndian.Uint64(it.Item().Key()[len(prefPending):])
		rec, err := read(id)
		if err != nil {
			it.Close()
			return nil, err
		}
		byID[id] = rec
	}
	it.Close()
	it = txn.NewIterator(badger.IteratorOptions{PrefetchValues: false, Reverse: true})
	defer it.Close()
	end := append(append([]byte(nil), prefInput...), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff)
	n := 0
	for it.Seek(end); it.ValidForPrefix(prefInput) && n < recent; it.Next() {
		id := binary.BigEndian.Uint64(it.Item().Key()[len(prefInput):])
		if _, ok := byID[id]; ok {
			continue
		}
		rec := &record.InputRecord{}
		if err := it.Item().Value(func(b []byte) error { return decodeInput(b, rec) }); err != nil {
			return nil, recordError(fmt.Sprintf("input %d", id), err)
		}
		if rec.Source == "fuzz" {
			byID[id] = rec
			n++
		}
	}
	out := make([]*record.InputRecord, 0, len(byID))
	for _, rec := range byID {
		out = append(out, rec)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// eachInput calls fn for every stored input, in id order.
func (s *Store) eachInput(txn *badger.Txn, fn func(*record.InputRecord) error) error {
	it := txn.NewIterator(badger.IteratorOptions{PrefetchValues: false})
	defer it.Close()
	for it.Seek(prefInput); it.ValidForPrefix(prefInput); it.Next() {
		rec := &record.InputRecord{}
		if err := it.Item().Value(func(b []byte) error { return decodeInput(b, rec) }); err != nil {
			return recordError(fmt.Sprintf("input %d", binary.BigEndian.Uint64(it.Item().Key()[len(prefInput):])), err)
		}
		if err := fn(rec); err != nil {
			return err
		}
	}
	return nil
}

// decodeInput reads a stored input record. It runs for every input a
// continued campaign loads, so it reads by path with gjson instead of
// reflection, and validates what it reads.
func decodeInput(b []byte, rec *record.InputRecord) error {
	if len(b) > 0 && (b[0] == recordV1 || b[0] == recordV2) {
		return decodeRecord(b, rec)
	}
	if !gjson.ValidBytes(b) {
		return fmt.Errorf("record is not valid JSON")
	}
	r := gjson.ParseBytes(b)
	id, iter, src := r.Get("id"), r.Get("iteration"), r.Get("source")
	if id.Type != gjson.Number || iter.Type != gjson.Number || src.Type != gjson.String {
		return fmt.Errorf("record lacks id, iteration or source")
	}
	*rec = record.InputRecord{ID: id.Uint(), Iteration: iter.Int(), Source: src.String(), Parent: r.Get("parent").Uint()}
	if ni := r.Get("new_items"); ni.Exists() {
		rec.NewItems = map[string]int{}
		ni.ForEach(func(k, v gjson.Result) bool {
			rec.NewItems[k.String()] = int(v.Int())
			return true
		})
	}
	r.Get("guide_items").ForEach(func(_, v gjson.Result) bool {
		rec.GuideItems = append(rec.GuideItems, v.Uint())
		return true
	})
	in := r.Get("input")
	if v := in.Get("version"); v.Int() != schedule.InputVersion {
		return fmt.Errorf("input version %s, want %d", v.Raw, schedule.InputVersion)
	}
	steps := in.Get("steps")
	if !steps.IsArray() {
		return fmt.Errorf("input has no steps")
	}
	rec.Input = &schedule.Input{Steps: make([]schedule.Step, 0, 64)}
	var bad error
	steps.ForEach(func(_, st gjson.Result) bool {
		p, a := st.Get("process"), st.Get("action")
		if p.Type != gjson.Number || a.Type != gjson.String {
			bad = fmt.Errorf("step %d lacks process or action", len(rec.Input.Steps))
			return false
		}
		rec.Input.Steps = append(rec.Input.Steps, schedule.Step{Process: int(p.Int()), Action: schedule.Action(a.Str),
			Messages: int(st.Get("messages").Int()), Value: int(st.Get("value").Int())})
		return true
	})
	if bad != nil {
		return bad
	}
	return rec.Input.Validate(nil)
}

// Input returns one stored input.
func (s *Store) Input(id uint64) (*record.InputRecord, error) {
	var rec *record.InputRecord
	err := s.db.View(func(txn *badger.Txn) error {
		it, err := txn.Get(inputKey(id))
		if errors.Is(err, badger.ErrKeyNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		rec = &record.InputRecord{}
		return it.Value(func(b []byte) error { return decodeInput(b, rec) })
	})
	if err != nil {
		return nil, readFailed(s.dir, fmt.Sprintf("input %d", id), err)
	}
	if rec == nil {
		return nil, fmt.Errorf("corpus %s: no input with id %d", s.dir, id)
	}
	return rec, nil
}

// Bug returns one stored bug.
func (s *Store) Bug(id string) (*record.BugRecord, error) {
	k, err := bugKey(id)
	if err != nil {
		return nil, fmt.Errorf("corpus %s: %v", s.dir, err)
	}
	var rec record.BugRecord
	ok, err := s.get(k, &rec)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("corpus %s: no bug with id %s", s.dir, id)
	}
	return &rec, nil
}

// Stats returns the campaign's stats snapshots, oldest first.
func (s *Store) Stats() ([]*record.StatsRecord, error) {
	return scanJSON[record.StatsRecord](s, prefStats, "stats snapshot")
}

// Bugs returns every stored bug, in id order.
func (s *Store) Bugs() ([]*record.BugRecord, error) {
	return scanJSON[record.BugRecord](s, prefBug, "bug")
}

// scanJSON decodes every record under prefix, in key order.
func scanJSON[T any](s *Store, prefix []byte, what string) ([]*T, error) {
	var out []*T
	err := s.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{PrefetchValues: true, Prefix: prefix})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			rec := new(T)
			if err := it.Item().Value(func(b []byte) error { return json.Unmarshal(b, rec) }); err != nil {
				return recordError(fmt.Sprintf("%s %x", what, it.Item().Key()[len(prefix):]), err)
			}
			out = append(out, rec)
		}
		return nil
	})
	if err != nil {
		return nil, readFailed(s.dir, "", err)
	}
	return out, nil
}
