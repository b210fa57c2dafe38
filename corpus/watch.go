package corpus

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelfuzz/modelfuzz/record"
)

// The store watches its directory: the promise of a corpus is "nothing
// lost, or told at once". A directory removed, replaced or remounted
// read-only under a running campaign, a lock file removed, a disk filling
// up, a write or a flush of the database that fails: each is a fault. The
// first fault is kept, Fault's channel is closed, and every Commit returns
// it from then on, so that the campaign stops within seconds instead of
// going on with writes that go nowhere.

const (
	// watchEvery is how often the directory is checked with the probe,
	// between commits as well.
	watchEvery = time.Second
	// commitCheckEvery is how often commits check the directory (without
	// the probe: a few stats, some microseconds), and a commit with a
	// stats snapshot always does: the last commit of every session has
	// one, so a session never ends on a directory that is gone.
	commitCheckEvery = 100 * time.Millisecond
	// checkTimeout bounds one check: a file system that does not answer
	// a stat in this long (a lost network mount) is a fault. A lost mount
	// never answers, so the bound only has to be far beyond what a busy
	// machine takes: at 5 s, a healthy campaign at nice 19 on 2 cores at
	// load 40 was stopped ("did not answer within 5s") while its disk was
	// fine.
	checkTimeout = 60 * time.Second
	// closeTimeout bounds Close: the database's last flush and its
	// background work must end within it (an 8 MiB memtable written as a
	// table; seconds on a loaded machine).
	closeTimeout = 30 * time.Second
	// probeFile is created and removed at every check: the directory
	// takes new files (the database creates its tables there).
	probeFile = "modelfuzz.probe"
)

// FaultError is a fault of a corpus's directory: the store can no longer
// keep what it is given. When the corpus itself is gone from its
// directory (removed or replaced), it wraps record.ErrStoreLost.
type FaultError struct {
	Dir     string
	Problem string // what happened, for people: "the directory was removed"
	Gone    bool   // the corpus is no longer in Dir: nothing of it can be read back there
	Err     error  // the cause, when there is one (ErrDiskFull, a system call's error)
}

func (e *FaultError) Error() string { return "corpus " + e.Dir + ": " + e.Problem }

func (e *FaultError) Unwrap() []error {
	var errs []error
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	if e.Gone {
		errs = append(errs, record.ErrStoreLost)
	}
	return errs
}

// fileID is what tells a file from another one at the same path.
type fileID struct{ dev, ino uint64 }

func idOf(fi os.FileInfo) fileID {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}
	}
	return fileID{uint64(st.Dev), st.Ino}
}

// watch is the state of a store's watch over its directory.
type watch struct {
	dirID, dbID, lockID fileID

	checking  atomic.Bool  // a check of the ticker is under way (possibly stuck in a system call)
	lastCheck atomic.Int64 // when a commit last checked (UnixNano)

	once     sync.Once
	fault    *FaultError   // the first fault; set before faulted is closed
	faulted  chan struct{} // closed at the first fault
	flushErr chan struct{} // closed when the database reported a failed flush
	flushOne sync.Once
	stop     chan struct{} // closed by Close: the ticker ends

	closeOnce sync.Once
	closeErr  error
}

// Fault implements record.FaultReporter: the channel is closed at the
// store's first fault.
func (s *Store) Fault() <-chan struct{} { return s.w.faulted }

// Err implements record.FaultReporter: the store's first fault, nil
// while it has none.
func (s *Store) Err() error {
	select {
	case <-s.w.faulted:
		return s.w.fault
	default:
		return nil
	}
}

// fail records fe as the store's fault, unless it has one already, and
// returns the store's fault.
func (s *Store) fail(fe *FaultError) error {
	s.w.once.Do(func() {
		s.w.fault = fe
		close(s.w.faulted)
	})
	return s.w.fault
}

// startWatch records the identities of the directory, the database
// directory and the lock file as opened, and starts the ticker.
func (s *Store) startWatch() error {
	w := &s.w
	w.stop = make(chan struct{})
	for _, f := range []struct {
		path string
		id   *fileID
	}{{s.dir, &w.dirID}, {filepath.Join(s.dir, "db"), &w.dbID}} {
		fi, err := os.Stat(f.path)
		if err != nil {
			return fmt.Errorf("corpus %s: %v", s.dir, err)
		}
		*f.id = idOf(fi)
	}
	fi, err := s.lock.Stat()
	if err != nil {
		return fmt.Errorf("corpus %s: lock file: %v", s.dir, err)
	}
	w.lockID = idOf(fi)
	go s.watchLoop()
	return nil
}

func (s *Store) watchLoop() {
	t := time.NewTicker(watchEvery)
	defer t.Stop()
	for {
		select {
		case <-s.w.stop:
			return
		case <-s.w.faulted:
			return // nothing more to find
		case <-t.C:
			s.tick()
		}
	}
}

// tick checks the directory with the probe, unless the check of the last
// tick is still under way.
func (s *Store) tick() {
	if !s.w.checking.CompareAndSwap(false, true) {
		return
	}
	if fe := s.checkWithin(true, func() { s.w.checking.Store(false) }); fe != nil {
		s.fail(fe)
	}
}

// checkWithin runs check within checkTimeout (then done, if not nil); a
// check that does not end in time is a fault of its own.
func (s *Store) checkWithin(probe bool, done func()) *FaultError {
	ch := make(chan *FaultError, 1)
	go func() {
		fe := s.check(probe)
		if done != nil {
			done()
		}
		ch <- fe
	}()
	t := time.NewTimer(checkTimeout)
	defer t.Stop()
	select {
	case fe := <-ch:
		return fe
	case <-t.C:
		return &FaultError{Dir: s.dir, Problem: fmt.Sprintf("the file system did not answer within %v (a lost network mount?)", checkTimeout)}
	}
}

// check looks at the directory as the database will use it: the same
// directories and lock file as at Open, not read-only, with room; with
// probe, it also creates and removes a file there (a few system calls
// more, once a second). A directory being removed loses its files first
// (the lock file, the database's): a fault is looked at again shortly
// after, to name it by its cause.
func (s *Store) check(probe bool) *FaultError {
	fe := s.look(probe)
	if fe != nil && !fe.Gone {
		time.Sleep(settleDelay)
		if again := s.look(false); again != nil && again.Gone {
			return again
		}
	}
	return fe
}

// settleDelay is how long check waits before it looks at a fault again.
const settleDelay = 250 * time.Millisecond

func (s *Store) look(probe bool) *FaultError {
	w := &s.w
	gone := func(problem string, err error) *FaultError {
		return &FaultError{Dir: s.dir, Problem: problem + " (the corpus is lost)", Gone: true, Err: err}
	}
	for _, d := range []struct {
		path, what string
		id         fileID
	}{{s.dir, "the directory", w.dirID}, {filepath.Join(s.dir, "db"), "its database directory db", w.dbID}} {
		fi, err := os.Stat(d.path)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return gone(d.what+" was removed", err)
		case err != nil:
			return &FaultError{Dir: s.dir, Problem: "cannot read " + d.what + ": " + errText(err), Err: err}
		case idOf(fi) != d.id:
			return gone(d.what+" was replaced by another one", nil)
		}
	}
	fi, err := os.Stat(filepath.Join(s.dir, lockFile))
	switch {
	case errors.Is(err, os.ErrNotExist):
		return &FaultError{Dir: s.dir, Problem: "the lock file " + lockFile + " was removed: another process could open the corpus at the same time", Err: err}
	case err != nil:
		return &FaultError{Dir: s.dir, Problem: "cannot read the lock file: " + errText(err), Err: err}
	case idOf(fi) != w.lockID:
		return &FaultError{Dir: s.dir, Problem: "the lock file " + lockFile + " was replaced: another process could open the corpus at the same time"}
	}
	if fe := s.fsFault(); fe != nil || !probe {
		return fe
	}
	path := filepath.Join(s.dir, probeFile)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		if errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM) {
			return &FaultError{Dir: s.dir, Problem: "the directory became read-only: " + errText(err), Err: err}
		}
		return &FaultError{Dir: s.dir, Problem: "cannot create files in the directory: " + errText(err), Err: err}
	}
	f.Close()
	if err := os.Remove(path); err != nil {
		return &FaultError{Dir: s.dir, Problem: "cannot remove files in the directory: " + errText(err), Err: err}
	}
	return nil
}

// stReadOnly is statfs's flag of a file system mounted read-only
// (ST_RDONLY).
const stReadOnly = 0x1

// errText is a system call's error without the path (the message names
// the corpus already).
func errText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return oneLine(err)
}

// fsFault says whether the corpus's file system is mounted read-only or
// almost full.
func (s *Store) fsFault() *FaultError {
	var st syscall.Statfs_t
	if err := syscall.Statfs(s.dir, &st); err != nil {
		return nil // cannot tell; the writes will say
	}
	if st.Flags&stReadOnly != 0 {
		return &FaultError{Dir: s.dir, Problem: "the directory became read-only: its file system is mounted read-only", Err: syscall.EROFS}
	}
	free := st.Bavail * uint64(st.Bsize)
	if free < s.minFree {
		return &FaultError{Dir: s.dir, Err: ErrDiskFull,
			Problem: fmt.Sprintf("%v: %d MiB free, a corpus needs %d MiB to write safely; free some space and run again (the corpus is intact)", ErrDiskFull, free>>20, s.minFree>>20)}
	}
	return nil
}

// writeFailed makes a failed write of the database a fault. A failure
// whose cause the directory shows (it was removed, it is read-only) is
// reported as that cause.
func (s *Store) writeFailed(what string, err error) error {
	if fe := s.checkWithin(true, nil); fe != nil {
		return s.fail(fe)
	}
	return s.fail(&FaultError{Dir: s.dir, Problem: what + ": " + oneLine(err), Err: err})
}

// dbLogger receives badger's log. A failed flush of a memtable is a fault:
// badger retries it forever, and writes block once its memtables are full.
// Everything else badger says is left out (it retries or reports
// through the calls' errors).
type dbLogger struct{ s *Store }

func (l dbLogger) Errorf(format string, args ...any) {
	if !strings.HasPrefix(format, "error flushing memtable") {
		return
	}
	cause := fmt.Errorf(strings.TrimSuffix(strings.TrimPrefix(format, "error flushing memtable to disk: "), ", retrying"), args...)
	l.s.writeFailed("the database cannot write its tables", cause)
	l.s.w.flushOne.Do(func() { close(l.s.w.flushErr) }) // after the fault is set: Close reads it
}

func (dbLogger) Warningf(string, ...any) {}
func (dbLogger) Infof(string, ...any)    {}
func (dbLogger) Debugf(string, ...any)   {}

// Close flushes and closes the database and releases the lock, within
// closeTimeout: a database that cannot flush (its directory is gone or
// read-only) is left behind with an error saying what was not written.
// What was committed is in the database's write-ahead log as a kill -9
// leaves it, and is read back at the next Open if the directory is still
// there.
func (s *Store) Close() error {
	if s.snapshot != "" {
		s.w.closeOnce.Do(func() { s.w.closeErr = s.closeSnapshot() })
		return s.w.closeErr
	}
	s.w.closeOnce.Do(func() { s.w.closeErr = s.close() })
	return s.w.closeErr
}

func (s *Store) close() error {
	close(s.w.stop)
	if s.Err() == nil {
		if fe := s.checkWithin(false, nil); fe != nil && fe.Gone {
			s.fail(fe) // gone since the last check: nothing to wait for
		}
	}
	done := make(chan error, 1)
	go func() { done <- s.db.Close() }()
	defer releaseLock(s.lock)
	if fe, _ := s.Err().(*FaultError); fe != nil && fe.Gone {
		return fmt.Errorf("corpus %s: nothing could be written: %s", s.dir, fe.Problem)
	}
	t := time.NewTimer(closeTimeout)
	defer t.Stop()
	const kept = "what was committed is in its write-ahead log and is read back at the next open"
	closed := func(err error) error {
		if err != nil {
			return fmt.Errorf("corpus %s: close: %s; %s", s.dir, oneLine(err), kept)
		}
		return nil
	}
	select {
	case err := <-done:
		return closed(err)
	case <-s.w.flushErr:
		select {
		case err := <-done:
			return closed(err)
		default:
		}
		problem := "a flush failed"
		if fe, _ := s.Err().(*FaultError); fe != nil && fe.Gone {
			return fmt.Errorf("corpus %s: nothing could be written: %s", s.dir, fe.Problem)
		} else if fe != nil {
			problem = fe.Problem
		}
		return fmt.Errorf("corpus %s: close: the database could not write its last changes into its tables: %s; %s", s.dir, problem, kept)
	case <-t.C:
		return fmt.Errorf("corpus %s: close: the database did not finish writing its tables within %v; %s", s.dir, closeTimeout, kept)
	}
}
