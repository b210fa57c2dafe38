package corpus

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
	"github.com/dgraph-io/badger/v4/table"
	"github.com/dgraph-io/ristretto/v2/z"
)

// A table file (.sst) cut short or overwritten makes badger panic in one
// of the goroutines that open its tables, which no recover in this
// process can catch: every command would die with a stack trace and
// leave badger's LOCK and a new memtable log behind. So the tables are
// opened here first, where a panic can be turned into a DamagedError.

// DamagedError is a corpus with a table file that cannot be read.
type DamagedError struct {
	Dir     string
	File    string // relative to Dir: db/000001.sst
	Problem string
}

func (e *DamagedError) Error() string {
	return fmt.Sprintf("corpus %s: damaged table file %s (%s); \"modelfuzz corpus repair %s\" keeps what can still be read",
		e.Dir, e.File, e.Problem, e.Dir)
}

// tableFiles lists the table files of a database directory, in name order.
func tableFiles(db string) ([]string, error) {
	entries, err := os.ReadDir(db)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".sst") {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out, nil
}

// liveTables lists the table files of a database directory that its
// MANIFEST lists, in name order. A table file it does not list (one a
// crash left half written) is none of the database's: badger deletes it
// at open. Without a readable MANIFEST, every table file is listed.
func liveTables(db string) ([]string, error) {
	names, err := tableFiles(db)
	if err != nil || len(names) == 0 {
		return names, err
	}
	f, err := os.Open(filepath.Join(db, "MANIFEST"))
	if err != nil {
		return names, nil
	}
	defer f.Close()
	bo := dbOptions(db, nil)
	mf, _, err := replayManifest(f, bo)
	if err != nil {
		return names, nil
	}
	var live []string
	for _, name := range names {
		if id, ok := table.ParseFileID(name); ok {
			if _, listed := mf.Tables[id]; listed {
				live = append(live, name)
			}
		}
	}
	return live, nil
}

// replayManifest reads a MANIFEST; a panic on a corrupted one is an error.
func replayManifest(f *os.File, bo badger.Options) (mf badger.Manifest, n int64, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	return badger.ReplayManifestFile(f, bo.ExternalMagicVersion, bo)
}

// checkTables opens every table of the database in db (of the corpus in
// dir) and returns the first that cannot be opened as a DamagedError.
// verify also checks every block's checksum (reads the whole table).
func checkTables(dir, db string, verify bool) error {
	names, err := liveTables(db)
	if err != nil {
		return fmt.Errorf("corpus %s: %v", dir, err)
	}
	for _, name := range names {
		t, err := openTable(filepath.Join(db, name), verify)
		if err != nil {
			return &DamagedError{Dir: dir, File: filepath.Join("db", name), Problem: err.Error()}
		}
		t.DecrRef()
	}
	return nil
}

// openTable opens one table file read-only; a panic of the table code (a
// corrupted index) becomes an error.
func openTable(path string, verify bool) (t *table.Table, err error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if fi.Size() == 0 {
		return nil, fmt.Errorf("empty file")
	}
	mf, err := z.OpenMmapFile(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, fmt.Errorf("cannot map it: %s", firstLine(err.Error()))
	}
	unreadable := fmt.Errorf("its index cannot be read: %d bytes, cut short or overwritten?", fi.Size())
	defer func() {
		if r := recover(); r != nil {
			t, err = nil, unreadable
		}
	}()
	mode := options.NoVerification
	if verify {
		mode = options.OnTableAndBlockRead
	}
	// The block size and compression of dbOptions; reading needs them to
	// size its buffers.
	bo := dbOptions("", nil)
	t, err = table.OpenTable(mf, table.Options{ReadOnly: true, ChkMode: mode, BlockSize: bo.BlockSize, Compression: bo.Compression})
	if err != nil {
		if strings.Contains(err.Error(), "checksum") {
			return nil, fmt.Errorf("a checksum does not match: %d bytes, overwritten?", fi.Size())
		}
		return nil, unreadable
	}
	return t, nil
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}
