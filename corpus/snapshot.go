package corpus

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Read-only access. Badger cannot open a database another process has
// open, nor one in a directory it cannot write (it takes a lock file and
// replays its logs), and a read-only command that took the corpus's lock
// would keep a campaign from starting meanwhile; so the read-only commands
// read a snapshot: a copy of the database files taken now, opened in a
// temporary directory and removed at Close. The files of a running campaign's database change
// while they are copied, so the copy starts with the MANIFEST (the list of
// tables) and is taken again when a table it lists is deleted meanwhile
// (a compaction) or a memtable log is (a flush, whose table the copied
// MANIFEST does not list); the memtable logs are read back up to their
// last complete transaction, as after a crash. A snapshot is a consistent
// state of the corpus as of some commit during the copy.

// snapshotAttempts bounds the copies tried while the database changes.
const snapshotAttempts = 10

// snapshotReason says why a read-only command's view is a snapshot, when
// the user should know: a campaign holds the corpus (its lock file names a
// live process; the lock itself is not tried, which would keep that
// campaign from starting), or nobody may write its directory.
func snapshotReason(dir string) string {
	for _, d := range []string{dir, filepath.Join(dir, "db")} {
		if fi, err := os.Stat(d); err == nil && fi.Mode().Perm()&0o222 == 0 {
			return "its directory is read-only"
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, lockFile))
	if err != nil {
		return ""
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	switch {
	case err != nil || pid <= 0:
		return ""
	case pid == os.Getpid():
		return fmt.Sprintf("this process (pid %d) holds it", pid)
	case syscall.Kill(pid, 0) == nil || errors.Is(syscall.Kill(pid, 0), syscall.EPERM):
		return fmt.Sprintf("a running campaign (pid %d) holds it", pid)
	}
	return ""
}

// openSnapshot opens a read-only snapshot of the corpus in dir.
func openSnapshot(dir, why string) (*Store, error) {
	src := filepath.Join(dir, "db")
	for attempt := 1; ; attempt++ {
		tmp, err := os.MkdirTemp("", "modelfuzz-snapshot-")
		if err != nil {
			return nil, fmt.Errorf("corpus %s: %s, and a snapshot cannot be taken: %v", dir, why, err)
		}
		s, retry, err := trySnapshot(dir, src, tmp, why)
		if err == nil {
			return s, nil
		}
		os.RemoveAll(tmp)
		if !retry || attempt == snapshotAttempts {
			return nil, err
		}
	}
}

// trySnapshot copies the database into tmp and opens the copy; retry says
// that the database changed during the copy.
func trySnapshot(dir, src, tmp, why string) (s *Store, retry bool, err error) {
	dst := filepath.Join(tmp, "db")
	if err := os.Mkdir(dst, 0o755); err != nil {
		return nil, false, fmt.Errorf("corpus %s: snapshot: %v", dir, err)
	}
	mems, err := memLogs(src)
	if err != nil {
		return nil, false, fmt.Errorf("corpus %s: %s", dir, errText(err))
	}
	// A MANIFEST missing is damage (checkDatabase says so on the copy):
	// badger replaces it at once, never removes it.
	manifest, err := os.Stat(filepath.Join(src, "MANIFEST"))
	if err == nil {
		if err := copyFile(filepath.Join(src, "MANIFEST"), filepath.Join(dst, "MANIFEST")); err != nil {
			return nil, errors.Is(err, os.ErrNotExist), fmt.Errorf("corpus %s: snapshot: %s", dir, errText(err))
		}
	} else if !os.IsNotExist(err) {
		return nil, false, fmt.Errorf("corpus %s: cannot read db/MANIFEST: %s", dir, errText(err))
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		return nil, false, fmt.Errorf("corpus %s: %v", dir, err)
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || name == "MANIFEST" || name == "LOCK" || strings.HasSuffix(name, ".tmp") {
			continue
		}
		if err := copyFile(filepath.Join(src, name), filepath.Join(dst, name)); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil, true, fmt.Errorf("corpus %s: the database changed during each of %d snapshots", dir, snapshotAttempts)
			}
			return nil, false, fmt.Errorf("corpus %s: snapshot: %s", dir, errText(err))
		}
	}
	after, err := memLogs(src)
	if err != nil {
		return nil, false, fmt.Errorf("corpus %s: %v", dir, err)
	}
	for name := range mems {
		if !after[name] {
			return nil, true, fmt.Errorf("corpus %s: the database changed during each of %d snapshots", dir, snapshotAttempts)
		}
	}
	return openCopy(dir, tmp, why, manifest)
}

// openCopy opens the copy in tmp/db of the database of the corpus in dir;
// manifest is the source's MANIFEST as it was copied (nil: none).
func openCopy(dir, tmp, why string, manifest os.FileInfo) (s *Store, retry bool, err error) {
	src, dst := filepath.Join(dir, "db"), filepath.Join(tmp, "db")
	s = &Store{dir: dir, snapshot: tmp, readOnly: why}
	bo := dbOptions(dst, s)
	s.w.faulted, s.w.flushErr = make(chan struct{}), make(chan struct{})
	if err := removeEmptyLogs(dst); err != nil {
		return nil, false, fmt.Errorf("corpus %s: snapshot: %v", dir, err)
	}
	// Taken again only if the MANIFEST changed meanwhile (a copy caught
	// in the middle of an update); else the corpus is damaged.
	changed := func() bool {
		if manifest == nil {
			return false
		}
		now, serr := os.Stat(filepath.Join(src, "MANIFEST"))
		return serr != nil || now.Size() != manifest.Size() || !now.ModTime().Equal(manifest.ModTime())
	}
	if err := checkDatabase(dir, dst); err != nil {
		return nil, changed(), err
	}
	db, err := openBadger(bo)
	if err != nil {
		return nil, changed(), openFailed(dir, err)
	}
	s.db = db
	return s, false, nil
}

// memLogs lists the memtable logs of a database directory.
func memLogs(db string) (map[string]bool, error) {
	entries, err := os.ReadDir(db)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".mem") {
			out[e.Name()] = true
		}
	}
	return out, nil
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// closeSnapshot closes a snapshot's database and removes its copy.
func (s *Store) closeSnapshot() error {
	err := s.db.Close()
	if rerr := os.RemoveAll(s.snapshot); err == nil && rerr != nil {
		err = rerr
	}
	if err != nil {
		return fmt.Errorf("corpus %s: closing its snapshot: %v", s.dir, err)
	}
	return nil
}

// writable refuses writes to a read-only snapshot.
func (s *Store) writable() error {
	if s.snapshot != "" {
		return fmt.Errorf("corpus %s: opened read-only (a snapshot); this command cannot write to it", s.dir)
	}
	return nil
}

// ReadOnly says what a user of a read-only snapshot should know about it:
// that a running campaign holds the corpus, or that its directory is
// read-only ("" : nothing, or not a snapshot).
func (s *Store) ReadOnly() string { return s.readOnly }
