package raftkv

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"

	pb "go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"
)

// The files of a data directory. The record format and the rules that tie
// the files together are described in doc.go ("Storage").
const (
	snapshotFile  = "snapshot"
	hardStateFile = "hardstate"
	logFile       = "log"
	bootsFile     = "boots"
	tmpSuffix     = ".tmp"
)

const (
	recordHeader = 8
	// maxRecord bounds a record's length, so that a corrupt length field
	// reads as a torn record instead of a huge allocation.
	maxRecord = 1 << 30
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// appendRecord frames payload as a record: length, CRC-32C, payload.
func appendRecord(b, payload []byte) []byte {
	var hdr [recordHeader]byte
	binary.LittleEndian.PutUint32(hdr[0:], uint32(len(payload)))
	binary.LittleEndian.PutUint32(hdr[4:], crc32.Checksum(payload, crcTable))
	return append(append(b, hdr[:]...), payload...)
}

// readRecords returns the payloads of the intact records at the start of b
// and the length of that prefix; what follows it is a torn or corrupt tail.
func readRecords(b []byte) (recs [][]byte, good int) {
	for len(b)-good >= recordHeader {
		n := binary.LittleEndian.Uint32(b[good:])
		sum := binary.LittleEndian.Uint32(b[good+4:])
		if n > maxRecord || uint64(len(b)-good-recordHeader) < uint64(n) {
			break
		}
		p := b[good+recordHeader : good+recordHeader+int(n)]
		if crc32.Checksum(p, crcTable) != sum {
			break
		}
		recs = append(recs, p)
		good += recordHeader + int(n)
	}
	return recs, good
}

// entryID is the index and term of a log position.
type entryID struct{ index, term uint64 }

// DiskState is what a data directory holds when it is opened.
type DiskState struct {
	HardState *pb.HardState
	Snapshot  *pb.Snapshot
	// Entries follow the snapshot without a gap.
	Entries []*pb.Entry
	// Fresh is set when the directory held no state and was bootstrapped.
	Fresh bool
	// Boot counts the starts of the directory, 1 for the first.
	Boot uint64
	// TornBytes is the length of the torn tail cut from the log file.
	TornBytes int
}

// Disk is the durable state of one replica: the latest snapshot, the
// HardState, and the log entries after the snapshot. Every method returns
// after its writes are fsynced. Disk is not safe for concurrent use.
type Disk struct {
	dir  string
	log  *os.File // the log file, opened for appending
	base entryID  // the snapshot the log file's entries follow
	ents []*pb.Entry
}

// OpenDisk opens the data directory dir, creating it and writing the
// bootstrap snapshot into it if it holds no state yet, and returns what it
// holds.
func OpenDisk(dir string, bootstrap *pb.Snapshot) (*Disk, *DiskState, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("raftkv: data dir: %w", err)
	}
	d := &Disk{dir: dir}
	st := &DiskState{}
	snap := &pb.Snapshot{}
	switch err := readFileRecord(d.path(snapshotFile), snap); {
	case errors.Is(err, fs.ErrNotExist):
		if err := d.bootstrap(bootstrap); err != nil {
			return nil, nil, err
		}
		snap, st.Fresh = bootstrap, true
	case err != nil:
		return nil, nil, err
	}
	st.Snapshot = snap
	boot, err := d.countBoot()
	if err != nil {
		return nil, nil, err
	}
	st.Boot = boot

	hs := &pb.HardState{}
	if err := readFileRecord(d.path(hardStateFile), hs); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, err
	}
	if st.TornBytes, err = d.loadLog(); err != nil {
		return nil, nil, err
	}
	md := snap.GetMetadata()
	snapID := entryID{md.GetIndex(), md.GetTerm()}
	if d.base.index > snapID.index {
		return nil, nil, fmt.Errorf("raftkv: %s: log starts after index %d, beyond the snapshot at %d", d.path(logFile), d.base.index, snapID.index)
	}
	if d.base != snapID {
		// A crash fell between writing a snapshot and rewriting the log.
		d.chain(snapID)
		if err := d.rewriteLog(); err != nil {
			return nil, nil, err
		}
	}
	st.Entries = d.ents
	st.HardState = repairHardState(hs, snapID, d.last())
	if err := d.openLog(); err != nil {
		return nil, nil, err
	}
	return d, st, nil
}

// repairHardState makes the HardState of a directory consistent with its
// log after a crash between the writes of one Ready (entries, HardState,
// snapshot): the commit index lies in [snapshot, last], and the term is not
// below the last entry's. A term raised that way has no vote: the node sent
// nothing in that term, since its messages wait for the HardState. The
// bootstrap snapshot is the exception, its term 1 is above the nodes' term 0.
func repairHardState(hs *pb.HardState, snap, last entryID) *pb.HardState {
	out := &pb.HardState{Term: new(hs.GetTerm()), Vote: new(hs.GetVote()), Commit: new(hs.GetCommit())}
	lastTerm := last.term
	if last.index == snap.index && snap.index <= bootstrapIndex {
		lastTerm = 0
	}
	if out.GetTerm() < lastTerm {
		out.Term, out.Vote = new(lastTerm), new(uint64(0))
	}
	if raftEmptyHardState(out) {
		return out
	}
	out.Commit = new(min(max(out.GetCommit(), snap.index), last.index))
	return out
}

func raftEmptyHardState(hs *pb.HardState) bool {
	return hs.GetTerm() == 0 && hs.GetVote() == 0 && hs.GetCommit() == 0
}

func (d *Disk) path(name string) string { return filepath.Join(d.dir, name) }

// last is the position of the last entry, or the base without entries.
func (d *Disk) last() entryID {
	if len(d.ents) == 0 {
		return d.base
	}
	e := d.ents[len(d.ents)-1]
	return entryID{e.GetIndex(), e.GetTerm()}
}

func (d *Disk) bootstrap(snap *pb.Snapshot) error {
	md := snap.GetMetadata()
	d.base, d.ents = entryID{md.GetIndex(), md.GetTerm()}, nil
	if err := d.rewriteLog(); err != nil {
		return err
	}
	if err := os.Remove(d.path(hardStateFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("raftkv: bootstrap: %w", err)
	}
	// The snapshot file comes last: its presence marks the directory as
	// initialized.
	return writeFileRecord(d.dir, snapshotFile, snap)
}

// countBoot increments the directory's start counter.
func (d *Disk) countBoot() (uint64, error) {
	b, err := os.ReadFile(d.path(bootsFile))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return 0, fmt.Errorf("raftkv: %w", err)
	}
	var n uint64
	if recs, _ := readRecords(b); len(recs) == 1 && len(recs[0]) == 8 {
		n = binary.LittleEndian.Uint64(recs[0])
	}
	n++
	var p [8]byte
	binary.LittleEndian.PutUint64(p[:], n)
	return n, writeFileAtomic(d.dir, bootsFile, appendRecord(nil, p[:]))
}

// loadLog reads the log file into base and ents, cutting a torn tail. A
// record that repeats an index overwrites the suffix from there on, so a
// log file is valid whether conflicts were rewritten or appended.
func (d *Disk) loadLog() (torn int, err error) {
	name := d.path(logFile)
	b, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("raftkv: %w", err)
	}
	recs, good := readRecords(b)
	if torn = len(b) - good; torn > 0 {
		if err := os.Truncate(name, int64(good)); err != nil {
			return 0, fmt.Errorf("raftkv: cut the torn tail of %s: %w", name, err)
		}
	}
	for i, rec := range recs {
		e := &pb.Entry{}
		if err := proto.Unmarshal(rec, e); err != nil {
			return 0, fmt.Errorf("raftkv: %s: record %d: %v", name, i, err)
		}
		if i == 0 {
			d.base = entryID{e.GetIndex(), e.GetTerm()}
			continue
		}
		last := d.last()
		switch idx := e.GetIndex(); {
		case idx == last.index+1:
		case idx > d.base.index && idx <= last.index:
			d.ents = d.ents[:idx-d.base.index-1]
		default:
			return 0, fmt.Errorf("raftkv: %s: record %d: entry %d does not follow entry %d", name, i, idx, last.index)
		}
		d.ents = append(d.ents, e)
	}
	return torn, nil
}

// chain makes the log follow the snapshot snap: the entries after snap are
// kept if the log holds snap's own entry, otherwise the snapshot replaced
// the log (as raft.MemoryStorage.ApplySnapshot does).
func (d *Disk) chain(snap entryID) {
	var keep []*pb.Entry
	for i, e := range d.ents {
		if e.GetIndex() == snap.index && e.GetTerm() == snap.term {
			keep = d.ents[i+1:]
			break
		}
	}
	d.base, d.ents = snap, append([]*pb.Entry(nil), keep...)
}

// Append makes ents durable. Entries that overwrite the log's suffix (a
// conflict raft resolved) cut it and rewrite the log file.
func (d *Disk) Append(ents []*pb.Entry) error {
	// Entries the snapshot covers are committed and already durable in it
	// (raft.MemoryStorage.Append skips them too).
	for len(ents) > 0 && ents[0].GetIndex() <= d.base.index {
		ents = ents[1:]
	}
	if len(ents) == 0 {
		return nil
	}
	first := ents[0].GetIndex()
	last := d.last()
	if first > last.index+1 {
		return fmt.Errorf("raftkv: append at index %d leaves a gap after %d", first, last.index)
	}
	if first <= last.index {
		d.ents = append(d.ents[:first-d.base.index-1:first-d.base.index-1], ents...)
		return d.rewriteLog()
	}
	var b []byte
	for _, e := range ents {
		p, err := proto.Marshal(e)
		if err != nil {
			return fmt.Errorf("raftkv: encode entry %d: %v", e.GetIndex(), err)
		}
		b = appendRecord(b, p)
	}
	if _, err := d.log.Write(b); err != nil {
		return fmt.Errorf("raftkv: %w", err)
	}
	if err := d.log.Sync(); err != nil {
		return fmt.Errorf("raftkv: %w", err)
	}
	d.ents = append(d.ents, ents...)
	return nil
}

// SetHardState makes hs durable.
func (d *Disk) SetHardState(hs *pb.HardState) error {
	return writeFileRecord(d.dir, hardStateFile, hs)
}

// SaveSnapshot makes snap durable, then drops the entries it covers: the
// entries after it stay if the log holds its entry (a snapshot of the own
// state machine), all go otherwise (a snapshot installed from a leader).
func (d *Disk) SaveSnapshot(snap *pb.Snapshot) error {
	if err := writeFileRecord(d.dir, snapshotFile, snap); err != nil {
		return err
	}
	md := snap.GetMetadata()
	d.chain(entryID{md.GetIndex(), md.GetTerm()})
	return d.rewriteLog()
}

// Close closes the log file. Everything is already durable.
func (d *Disk) Close() error {
	if d.log == nil {
		return nil
	}
	err := d.log.Close()
	d.log = nil
	return err
}

// rewriteLog replaces the log file with base and ents, atomically.
func (d *Disk) rewriteLog() error {
	p, err := proto.Marshal(&pb.Entry{Index: new(d.base.index), Term: new(d.base.term)})
	if err != nil {
		return fmt.Errorf("raftkv: encode log base: %v", err)
	}
	b := appendRecord(nil, p)
	for _, e := range d.ents {
		p, err := proto.Marshal(e)
		if err != nil {
			return fmt.Errorf("raftkv: encode entry %d: %v", e.GetIndex(), err)
		}
		b = appendRecord(b, p)
	}
	reopen := d.log != nil
	if reopen {
		_ = d.log.Close()
		d.log = nil
	}
	if err := writeFileAtomic(d.dir, logFile, b); err != nil {
		return err
	}
	if reopen {
		return d.openLog()
	}
	return nil
}

func (d *Disk) openLog() error {
	f, err := os.OpenFile(d.path(logFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("raftkv: %w", err)
	}
	d.log = f
	return nil
}

// readFileRecord reads a file written by writeFileRecord into m.
func readFileRecord(name string, m proto.Message) error {
	b, err := os.ReadFile(name)
	if err != nil {
		return fmt.Errorf("raftkv: %w", err)
	}
	recs, good := readRecords(b)
	if len(recs) != 1 || good != len(b) {
		return fmt.Errorf("raftkv: %s: corrupt file (%d bytes, %d intact records)", name, len(b), len(recs))
	}
	if err := proto.Unmarshal(recs[0], m); err != nil {
		return fmt.Errorf("raftkv: %s: %v", name, err)
	}
	return nil
}

// writeFileRecord replaces dir/name with one record holding m, atomically.
func writeFileRecord(dir, name string, m proto.Message) error {
	p, err := proto.Marshal(m)
	if err != nil {
		return fmt.Errorf("raftkv: encode %s: %v", name, err)
	}
	return writeFileAtomic(dir, name, appendRecord(nil, p))
}

// writeFileAtomic replaces dir/name with b: write a temporary file, fsync
// it, rename it over the old one, fsync the directory.
func writeFileAtomic(dir, name string, b []byte) error {
	tmp := filepath.Join(dir, name+tmpSuffix)
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("raftkv: %w", err)
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, name))
	}
	if err == nil {
		err = syncDir(dir)
	}
	if err != nil {
		return fmt.Errorf("raftkv: write %s: %w", filepath.Join(dir, name), err)
	}
	return nil
}

func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
