package corpus

import (
	"bytes"
	"fmt"
	"math"
	"os"
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
// opened here first (integrity.go), where a panic can be turned into a
// DamagedError.

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

// replayManifest reads a MANIFEST; a panic on a corrupted one is an error.
func replayManifest(f *os.File, bo badger.Options) (mf badger.Manifest, n int64, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	return badger.ReplayManifestFile(f, bo.ExternalMagicVersion, bo)
}

// openTable opens one table file read-only, verifying the checksums mode
// says; a panic of the table code (a corrupted index) becomes an error.
func openTable(path string, mode options.ChecksumVerificationMode) (t *table.Table, err error) {
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
	// The block size and compression of dbOptions; reading needs them to
	// size its buffers.
	bo := dbOptions("", nil)
	t, err = table.OpenTable(mf, table.Options{ReadOnly: true, ChkMode: mode, BlockSize: bo.BlockSize, Compression: bo.Compression})
	if err != nil {
		switch e := err.Error(); {
		case strings.Contains(e, "checksum"):
			return nil, fmt.Errorf("a block is damaged (its checksum does not match): overwritten?")
		case strings.Contains(e, "decompress"), strings.Contains(e, "compressed data"):
			return nil, fmt.Errorf("a block is damaged (it does not decompress): overwritten?")
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

// verifyTable opens the table file at path and reads every block of it
// with its checksum checked. (badger's own check at open, OnTableRead,
// dereferences a nil block when one fails: v4.9.6, table.go:711.)
func verifyTable(path string) (err error) {
	t, err := openTable(path, options.OnBlockRead)
	if err != nil {
		return err
	}
	defer t.DecrRef()
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("a block cannot be read: overwritten?")
		}
	}()
	bases := t.KeySplits(math.MaxInt32, nil)
	it := t.NewIterator(0)
	defer it.Close()
	for i, base := range bases {
		it.Seek([]byte(base))
		if !it.Valid() || !bytes.Equal(it.Key(), []byte(base)) {
			return fmt.Errorf("block %d of its %d is damaged: overwritten?", i+1, len(bases))
		}
	}
	return nil
}
