package corpus

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
	"github.com/dgraph-io/badger/v4/table"
	"github.com/dgraph-io/badger/v4/y"
)

// Integrity: what the database's files must be before it is opened.
// Badger trusts its files: a table whose data blocks were overwritten is
// read without complaint (a lookup that meets a block it cannot read goes
// on to an older table, and an iteration ends early), a MANIFEST cut short
// is read up to the cut and the tables it no longer lists are deleted, and
// a missing MANIFEST is written anew, listing no table. Any of these would
// show older data as current, or throw records away, without a word. So
// every open (of a campaign's corpus and of a read-only snapshot) checks
// first, and refuses a database that fails with a DamagedError:
//
//   - the MANIFEST exists, reads to its end with every checksum intact,
//     and every table file it lists exists;
//   - every table it lists opens and every block of it matches its
//     checksum (the whole database is read once per open; verifyTable);
//   - a table file it does not list holds nothing found nowhere else (what
//     a crash leaves between writing a table and recording it: the same
//     entries are in the memtable logs, or in the tables it was compacted
//     from); one that does means the MANIFEST lost it;
//   - the value logs and memtable logs have their header and name no
//     encryption key (none is used); the key registry reads.
//
// Reads after the open verify every block they read and every value read
// from the value log (dbOptions); damage done while a process has the
// corpus open is found by the next open.

// DamagedError is a corpus whose database has a damaged or missing file.
type DamagedError struct {
	Dir  string
	File string // relative to Dir: db/000001.sst, db/MANIFEST
	// What says what is wrong, naming File: "damaged table file
	// db/000001.sst (a checksum does not match)".
	What string
}

func (e *DamagedError) Error() string {
	return fmt.Sprintf("corpus %s: %s; \"modelfuzz corpus repair %s\" keeps what can still be read", e.Dir, e.What, e.Dir)
}

// damagedTable is a table file of the database in dir that cannot be read.
func damagedTable(dir, name, problem string) *DamagedError {
	f := filepath.Join("db", name)
	return &DamagedError{Dir: dir, File: f, What: "damaged table file " + f + " (" + problem + ")"}
}

// damagedFile is another file of the database in dir: what follows its
// name.
func damagedFile(dir, name, what string) *DamagedError {
	f := filepath.Join("db", name)
	return &DamagedError{Dir: dir, File: f, What: f + " " + what}
}

// vlogHeaderSize is the header of badger's value logs and memtable logs:
// the id of the encryption key (0: none) and an IV.
const vlogHeaderSize = 20

// checkDatabase checks the database directory db of the corpus in dir
// (which names the files in errors) before it is opened; see above.
func checkDatabase(dir, db string) error {
	mf, err := checkManifest(dir, db)
	if err != nil {
		return err
	}
	if err := checkLogs(dir, db); err != nil {
		return err
	}
	if err := checkKeyRegistry(dir, db); err != nil {
		return err
	}
	names, err := tableFiles(db)
	if err != nil {
		return fmt.Errorf("corpus %s: %v", dir, errText(err))
	}
	var listed, unlisted []string
	for _, name := range names {
		id, ok := table.ParseFileID(name)
		if _, in := mf.Tables[id]; ok && in {
			listed = append(listed, name)
		} else {
			unlisted = append(unlisted, name)
		}
	}
	// The tables are read on every core; the first damaged one in name
	// order is the one said.
	errs := make([]error, len(listed))
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < min(runtime.GOMAXPROCS(0), len(listed)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(listed); i = int(next.Add(1) - 1) {
				errs[i] = verifyTable(filepath.Join(db, listed[i]))
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return damagedTable(dir, listed[i], err.Error())
		}
	}
	if len(unlisted) > 0 {
		return checkUnlisted(dir, db, listed, unlisted)
	}
	return nil
}

// checkManifest reads the MANIFEST of db; every table it lists must exist.
func checkManifest(dir, db string) (badger.Manifest, error) {
	path := filepath.Join(db, "MANIFEST")
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return badger.Manifest{}, damagedFile(dir, "MANIFEST", "is missing (it lists the database's table files)")
	}
	if err != nil {
		return badger.Manifest{}, fmt.Errorf("corpus %s: cannot read db/MANIFEST: %s", dir, errText(err))
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return badger.Manifest{}, fmt.Errorf("corpus %s: cannot read db/MANIFEST: %s", dir, errText(err))
	}
	if fi.Size() == 0 {
		return badger.Manifest{}, damagedFile(dir, "MANIFEST", "is empty (it should list the database's table files)")
	}
	mf, end, err := replayManifest(f, dbOptions(db, nil))
	switch {
	case err != nil:
		return mf, damagedFile(dir, "MANIFEST", fmt.Sprintf("cannot be read (%s): overwritten?", manifestProblem(err)))
	case end < fi.Size():
		return mf, damagedFile(dir, "MANIFEST", fmt.Sprintf("is cut short: its last %d of %d bytes are not a whole record", fi.Size()-end, fi.Size()))
	}
	ids := make([]uint64, 0, len(mf.Tables))
	for id := range mf.Tables {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		name := table.IDToFilename(id)
		if _, err := os.Stat(filepath.Join(db, name)); os.IsNotExist(err) {
			f := filepath.Join("db", name)
			return mf, &DamagedError{Dir: dir, File: f, What: "table file " + f + ", which db/MANIFEST lists, is missing"}
		}
	}
	return mf, nil
}

// manifestProblem words why a MANIFEST does not read.
func manifestProblem(err error) string {
	s := err.Error()
	switch {
	case strings.Contains(s, "magic"):
		return "it does not start as a MANIFEST does"
	case strings.Contains(s, "checksum"):
		return "a checksum does not match"
	case strings.Contains(s, "version"):
		return "it is of another version of the database"
	}
	return "a record is not what it should be"
}

// checkLogs checks the headers of the value logs and memtable logs. An
// empty one is what a crash leaves while it is created (removeEmptyLogs).
func checkLogs(dir, db string) error {
	entries, err := os.ReadDir(db)
	if err != nil {
		return fmt.Errorf("corpus %s: %s", dir, errText(err))
	}
	for _, e := range entries {
		name := e.Name()
		kind := ""
		switch {
		case strings.HasSuffix(name, ".vlog"):
			kind = "value log"
		case strings.HasSuffix(name, ".mem"):
			kind = "memtable log"
		default:
			continue
		}
		f, err := os.Open(filepath.Join(db, name))
		if err != nil {
			return fmt.Errorf("corpus %s: cannot read db/%s: %s", dir, name, errText(err))
		}
		var h [vlogHeaderSize]byte
		n, err := io.ReadFull(f, h[:])
		f.Close()
		bad := func(problem string) error {
			p := filepath.Join("db", name)
			return &DamagedError{Dir: dir, File: p, What: "damaged " + kind + " file " + p + " (" + problem + ")"}
		}
		switch {
		case n == 0:
			continue
		case err != nil:
			return bad(fmt.Sprintf("%d bytes, shorter than its %d-byte header: cut short?", n, vlogHeaderSize))
		case binary.BigEndian.Uint64(h[:8]) != 0:
			return bad("its header names an encryption key, and none is used: overwritten?")
		}
	}
	return nil
}

// checkKeyRegistry reads the key registry (badger's list of encryption
// keys: none is used, so it holds nothing but its header). A missing one
// is written anew by badger, and nothing is lost.
func checkKeyRegistry(dir, db string) error {
	if _, err := os.Stat(filepath.Join(db, badger.KeyRegistryFileName)); os.IsNotExist(err) {
		return nil
	}
	kr, err := openKeyRegistry(db)
	if err != nil {
		p := filepath.Join("db", badger.KeyRegistryFileName)
		return &DamagedError{Dir: dir, File: p, What: "damaged file " + p + " (the key registry cannot be read: overwritten or cut short?)"}
	}
	return kr.Close()
}

// openKeyRegistry reads db's key registry; a panic on a damaged one is an
// error.
func openKeyRegistry(db string) (kr *badger.KeyRegistry, err error) {
	defer func() {
		if r := recover(); r != nil {
			kr, err = nil, fmt.Errorf("%v", r)
		}
	}()
	return badger.OpenKeyRegistry(badger.KeyRegistryOptions{Dir: db, ReadOnly: true})
}

// checkUnlisted checks the table files of db its MANIFEST does not list:
// every entry of them must be found, at the same version or a newer one,
// in the tables it lists or in the memtable logs (or be deleted among
// them). A table that does not open is a write a crash cut short.
func checkUnlisted(dir, db string, listed, unlisted []string) error {
	type need struct {
		version uint64
		table   string
	}
	want := map[string]need{}
	deleted := map[string]uint64{}
	for _, name := range unlisted {
		t, err := openTable(filepath.Join(db, name), options.OnBlockRead)
		if err != nil {
			continue
		}
		err = eachEntry(t, func(key []byte, version uint64, meta byte) {
			if meta&metaDelete != 0 {
				deleted[string(key)] = max(deleted[string(key)], version)
				return
			}
			if n, ok := want[string(key)]; !ok || version > n.version {
				want[string(key)] = need{version, name}
			}
		})
		t.DecrRef()
		if err != nil {
			continue
		}
	}
	for k, v := range deleted {
		if n, ok := want[k]; ok && n.version <= v {
			delete(want, k)
		}
	}
	found := func(key []byte, version uint64) {
		if n, ok := want[string(key)]; ok && version >= n.version {
			delete(want, string(key))
		}
	}
	for _, name := range listed {
		if len(want) == 0 {
			return nil
		}
		t, err := openTable(filepath.Join(db, name), options.OnBlockRead)
		if err != nil {
			return damagedTable(dir, name, err.Error())
		}
		err = eachEntry(t, func(key []byte, version uint64, _ byte) { found(key, version) })
		t.DecrRef()
		if err != nil {
			return damagedTable(dir, name, err.Error())
		}
	}
	if len(want) > 0 {
		readLogs(db, func(key []byte, e entry) { found(key, e.version) })
	}
	if len(want) == 0 {
		return nil
	}
	var tables []string
	for _, n := range want {
		if !slices.Contains(tables, n.table) {
			tables = append(tables, n.table)
		}
	}
	slices.Sort(tables)
	return damagedFile(dir, "MANIFEST", fmt.Sprintf("does not list the table file(s) %s, which hold %d record(s) found nowhere else: it was cut short or replaced",
		strings.Join(tables, ", "), len(want)))
}

// eachEntry calls fn with every entry of t (badger's own keys left out),
// in order; an error is a block that cannot be read.
func eachEntry(t *table.Table, fn func(key []byte, version uint64, meta byte)) error {
	it := t.NewIterator(0)
	defer it.Close()
	n := uint32(0)
	for it.Rewind(); it.Valid(); it.Next() {
		n++
		k := it.Key()
		key := y.ParseKey(k)
		if strings.HasPrefix(string(key), badgerPrefix) {
			continue
		}
		fn(key, y.ParseTs(k), it.Value().Meta)
	}
	if n < t.KeyCount() {
		return fmt.Errorf("a block cannot be read: %d of its %d entries read", n, t.KeyCount())
	}
	return nil
}

// badgerPrefix starts the keys badger keeps for itself in the tables.
const badgerPrefix = "!badger!"
