package check

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/modelfuzz/modelfuzz/tlc/value"
)

// Checkpoints (TLC's -checkpoint and -recover)
//
// The search is level-synchronous, so at a level boundary all of it is:
// the fingerprint set, the trace log (which rebuilds error traces), the
// level about to be expanded, the counters, and the state graph the
// PROPERTIES' Observer keeps for liveness. A checkpoint writes those into
// one file, CheckpointFile in Checkpointing.Dir, through a temporary file
// renamed into place once complete, so that a process killed while
// writing leaves the previous checkpoint whole. Recovery reads it back
// and the search goes on with the level it holds: the distinct and
// generated counts, the verdict and the traces are those of a search
// never interrupted.
//
// A checkpoint is taken at the first level boundary after each interval,
// not in the middle of a level as TLC does: a level that takes longer than
// the interval delays it.
//
// The file: the magic line, then uvarint-framed sections (the model's
// identity and variables, the model values' names in rank order, the
// counters and the out-degree histogram, the fingerprints, the trace log, the level in the queue's own
// block format, the Observer's state), then the SHA-256 of all that.
// With Checkpointing.Gzip the whole is gzip-compressed; recovery tells the
// two apart by their first bytes.

// CheckpointFile is the name of the checkpoint in its directory.
const CheckpointFile = "modelfuzz.chkpt"

const checkpointMagic = "modelfuzz checkpoint 2\n"

// Checkpointing configures a search's checkpoints.
type Checkpointing struct {
	// Dir is where the checkpoint is written ("": no checkpoints).
	Dir string
	// Every is the interval between checkpoints; Levels, when positive,
	// takes one every Levels levels instead (tests use it to take one at
	// a known point).
	Every  time.Duration
	Levels int
	// Gzip compresses the checkpoint (TLC's -gzip).
	Gzip bool
	// Identity identifies the model (the CLI hashes the spec's and the
	// cfg's text): recovery refuses a checkpoint of another model.
	Identity string
	// Start is called before a checkpoint is written, Done after, with
	// the counters it holds.
	Start func(dir string)
	Done  func(dir string, p Progress)
}

// Recovery is the outcome of reading a checkpoint, passed to
// Options.Recovered.
type Recovery struct {
	Path                string
	Distinct, Generated int64
	Queue               int64 // states on the level to expand
	Depth               int
}

// observerState is what an Observer implements to be part of a
// checkpoint.
type observerState interface {
	saveState(w *ckWriter)
	loadState(r *ckReader) error
}

// CheckpointDamaged is the error of a checkpoint that cannot be read.
type CheckpointDamaged struct {
	Path string
	Why  string
}

func (e *CheckpointDamaged) Error() string {
	return fmt.Sprintf("-recover %s: the checkpoint is damaged (%s)", e.Path, e.Why)
}

// checkpointDue says whether a checkpoint is to be taken before the level
// at depth is expanded; first is the first level of this run.
func (c *checker) checkpointDue(depth, first int, last time.Time) bool {
	ck := &c.opt.Checkpoint
	switch {
	case ck.Dir == "" || depth == first:
		return false
	case ck.Levels > 0:
		return (depth-first)%ck.Levels == 0
	case ck.Every > 0:
		return time.Since(last) >= ck.Every
	}
	return false
}

// checkpoint writes the search as it stands before the level l at depth
// is expanded.
func (c *checker) checkpoint(l *level, depth int) error {
	ck := &c.opt.Checkpoint
	if ck.Start != nil {
		ck.Start(ck.Dir)
	}
	if err := os.MkdirAll(ck.Dir, 0o755); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	final := filepath.Join(ck.Dir, CheckpointFile)
	f, err := os.CreateTemp(ck.Dir, CheckpointFile+".tmp-*")
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // gone once renamed
	err = c.writeCheckpoint(f, l, depth)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, final)
	}
	if err != nil {
		return fmt.Errorf("checkpoint %s: %w", final, err)
	}
	if ck.Done != nil {
		ck.Done(ck.Dir, Progress{Distinct: c.distinct.Load(), Generated: c.generated.Load(),
			Depth: int(c.depth.Load()), Queue: int(l.len())})
	}
	return nil
}

func (c *checker) writeCheckpoint(f *os.File, l *level, depth int) error {
	bw := bufio.NewWriterSize(f, 1<<20)
	var out io.Writer = bw
	var gz *gzip.Writer
	if c.opt.Checkpoint.Gzip {
		gz = gzip.NewWriter(bw)
		out = gz
	}
	w := &ckWriter{w: out, h: sha256.New()}
	w.raw([]byte(checkpointMagic))
	w.str(c.opt.Checkpoint.Identity)
	w.strs(c.m.Vars)
	w.strs(value.ModelValueNames())
	w.uint(uint64(depth))
	w.uint(uint64(c.distinct.Load()))
	w.uint(uint64(c.generated.Load()))
	w.uint(uint64(c.depth.Load()))
	for i := range c.outDegree {
		w.uint(uint64(c.outDegree[i].Load()))
	}

	// The fingerprints, shard by shard.
	var fps []uint64
	for i := range c.seen.shards {
		sh := &c.seen.shards[i]
		if sh.zero {
			fps = append(fps, 0)
		}
		for _, fp := range sh.tab {
			if fp != 0 {
				fps = append(fps, fp)
			}
		}
	}
	w.uint(uint64(len(fps)))
	for _, fp := range fps {
		w.u64(fp)
	}

	// The trace log.
	n := c.log.n.Load()
	w.uint(n)
	for id := range n {
		r := c.log.get(id)
		w.u64(r.parent)
		w.u64(r.fp)
	}

	// The level: the states in memory encoded as the queue's blocks are,
	// then the blocks on disk as they are.
	w.uint(uint64(l.len()))
	var buf []byte
	for _, it := range l.mem {
		buf = binary.AppendUvarint(buf, it.id)
		for _, v := range it.vals {
			buf = value.AppendBinary(buf, v)
		}
		if len(buf) >= blockBytes {
			w.bytes(buf)
			buf = buf[:0]
		}
	}
	if len(buf) > 0 {
		w.bytes(buf)
	}
	for _, b := range l.blocks {
		if cap(buf) < b.n {
			buf = make([]byte, b.n)
		}
		buf = buf[:b.n]
		if _, err := l.file.ReadAt(buf, b.off); err != nil {
			return fmt.Errorf("reading the queue: %w", err)
		}
		w.bytes(buf)
	}
	w.uint(0) // no more blocks

	if obs, ok := c.opt.Observer.(observerState); ok {
		w.uint(1)
		obs.saveState(w)
	} else {
		w.uint(0)
	}
	w.sum()
	if w.err != nil {
		return w.err
	}
	if gz != nil {
		if err := gz.Close(); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// recoverFrom reads the checkpoint at path (a directory holding
// CheckpointFile, or the file) into c, and returns the level to expand
// and its depth.
func (c *checker) recoverFrom(path string) (*level, int, error) {
	file := path
	if st, err := os.Stat(path); err != nil {
		return nil, 0, fmt.Errorf("-recover %s: %w", path, errors.Unwrap(err))
	} else if st.IsDir() {
		file = filepath.Join(path, CheckpointFile)
		if _, err := os.Stat(file); err != nil {
			return nil, 0, fmt.Errorf("-recover %s: no checkpoint in this directory (%s is missing)", path, CheckpointFile)
		}
	}
	// First the checksum, so that the content is known whole before it is
	// decoded.
	if err := verifyCheckpoint(file); err != nil {
		if d, ok := err.(*CheckpointDamaged); ok {
			d.Path = path
			return nil, 0, d
		}
		return nil, 0, fmt.Errorf("-recover %s: %w", path, err)
	}
	in, closeIn, err := openCheckpoint(file)
	if err != nil {
		return nil, 0, fmt.Errorf("-recover %s: %w", path, err)
	}
	defer closeIn()
	r := &ckReader{r: bufio.NewReaderSize(in, 1<<16)}
	l, depth, err := c.readCheckpoint(r)
	if err != nil {
		var d *CheckpointDamaged
		if errors.As(err, &d) {
			d.Path = path
			return nil, 0, d
		}
		var m *checkpointMismatch
		if errors.As(err, &m) {
			return nil, 0, fmt.Errorf("-recover %s: %s", path, m.why)
		}
		return nil, 0, fmt.Errorf("-recover %s: %w", path, err)
	}
	return l, depth, nil
}

// openCheckpoint opens a checkpoint file, gzip-compressed or not.
func openCheckpoint(file string) (io.Reader, func(), error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, nil, err
	}
	br := bufio.NewReaderSize(f, 1<<20)
	if head, _ := br.Peek(2); bytes.Equal(head, []byte{0x1f, 0x8b}) {
		gz, err := gzip.NewReader(br)
		if err != nil {
			f.Close()
			return nil, nil, &CheckpointDamaged{Why: "not a readable gzip stream: " + err.Error()}
		}
		return gz, func() { f.Close() }, nil
	}
	return br, func() { f.Close() }, nil
}

// verifyCheckpoint compares the hash at the end of a checkpoint with its
// content.
func verifyCheckpoint(file string) error {
	in, closeIn, err := openCheckpoint(file)
	if err != nil {
		return err
	}
	defer closeIn()
	h := sha256.New()
	tail := &holdBack{w: h}
	if _, err := io.Copy(tail, in); err != nil {
		return &CheckpointDamaged{Why: err.Error()}
	}
	if len(tail.last) < sha256.Size {
		return &CheckpointDamaged{Why: "it ends too early"}
	}
	if !bytes.Equal(tail.last, h.Sum(nil)) {
		return &CheckpointDamaged{Why: "its checksum does not match its content"}
	}
	return nil
}

// holdBack writes to w all but the last sha256.Size bytes written to it,
// which it keeps in last.
type holdBack struct {
	w    io.Writer
	last []byte
}

func (t *holdBack) Write(b []byte) (int, error) {
	all := append(t.last, b...)
	if k := len(all) - sha256.Size; k > 0 {
		t.w.Write(all[:k])
		all = all[k:]
	}
	t.last = append(t.last[:0:0], all...)
	return len(b), nil
}

// checkpointMismatch is a whole checkpoint of another model.
type checkpointMismatch struct{ why string }

func (e *checkpointMismatch) Error() string { return e.why }

func (c *checker) readCheckpoint(r *ckReader) (*level, int, error) {
	magic := r.raw(len(checkpointMagic))
	if r.err != nil || string(magic) != checkpointMagic {
		const prefix = "modelfuzz checkpoint "
		if r.err == nil && strings.HasPrefix(string(magic), prefix) {
			return nil, 0, &CheckpointDamaged{Why: fmt.Sprintf("a checkpoint of format %q, written by another version of modelfuzz; this one reads %q: check again without -recover",
				strings.TrimSpace(strings.TrimPrefix(string(magic), prefix)), strings.TrimSpace(strings.TrimPrefix(checkpointMagic, prefix)))}
		}
		return nil, 0, &CheckpointDamaged{Why: "not a modelfuzz checkpoint"}
	}
	id := r.str()
	vars := r.strs()
	names := r.strs()
	if r.err != nil {
		return nil, 0, r.damaged()
	}
	if id != c.opt.Checkpoint.Identity || !slices.Equal(vars, c.m.Vars) {
		return nil, 0, &checkpointMismatch{"the checkpoint is of another model: the spec, its configuration or the constants changed since it was written"}
	}
	for i, n := range names {
		if value.NewModelValue(n).Rank() != i {
			return nil, 0, &checkpointMismatch{fmt.Sprintf("model value %s has another rank than when the checkpoint was written", n)}
		}
	}
	depth := int(r.uint())
	c.distinct.Store(int64(r.uint()))
	c.generated.Store(int64(r.uint()))
	c.depth.Store(int64(r.uint()))
	for i := range c.outDegree {
		c.outDegree[i].Store(int64(r.uint()))
	}

	nfp := r.count(8)
	for i := uint64(0); i < nfp && r.err == nil; i++ {
		c.seen.add(r.u64())
	}
	nlog := r.count(16)
	for i := uint64(0); i < nlog && r.err == nil; i++ {
		parent, fp := r.u64(), r.u64()
		if r.err == nil && parent != noParent && parent >= nlog {
			r.err = errors.New("a trace record's parent is out of range")
		}
		c.log.add(parent, fp)
	}
	if r.err != nil {
		return nil, 0, r.damaged()
	}
	if int64(nfp) != c.distinct.Load() || nlog != nfp {
		return nil, 0, &CheckpointDamaged{Why: fmt.Sprintf("%d fingerprints and %d trace records for %d distinct states", nfp, nlog, c.distinct.Load())}
	}

	// The level goes to a queue file as its blocks came.
	l := &level{}
	states := r.uint()
	var got uint64
	for r.err == nil {
		b := r.bytes()
		if r.err != nil || len(b) == 0 {
			break
		}
		n, err := c.checkBlock(b)
		if err != nil {
			r.err = err
			break
		}
		got += uint64(n)
		if err := c.q.appendBlock(l, b, n); err != nil {
			l.done()
			return nil, 0, err
		}
	}
	if r.err == nil && got != states {
		r.err = fmt.Errorf("the level holds %d states, not %d", got, states)
	}
	if r.err == nil && r.uint() == 1 {
		obs, ok := c.opt.Observer.(observerState)
		if !ok {
			r.err = errors.New("it holds the state graph of properties this check does not have")
		} else if err := obs.loadState(r); err != nil && r.err == nil {
			r.err = err
		}
	} else if r.err == nil && c.opt.Observer != nil {
		if _, ok := c.opt.Observer.(observerState); ok {
			r.err = errors.New("it holds no state graph for the properties")
		}
	}
	if r.err != nil {
		l.done()
		return nil, 0, r.damaged()
	}
	return l, depth, nil
}

// checkBlock decodes a block of the level to count its states and to
// find damage before the search does.
func (c *checker) checkBlock(b []byte) (int, error) {
	dec := c.decs[0]
	n := 0
	for len(b) > 0 {
		id, k := binary.Uvarint(b)
		if k <= 0 || id >= c.log.n.Load() {
			return n, errors.New("a queued state's trace record is out of range")
		}
		b = b[k:]
		for range c.m.Vars {
			var err error
			if _, b, err = dec.Decode(b); err != nil {
				return n, fmt.Errorf("a queued state: %w", err)
			}
		}
		n++
	}
	return n, nil
}

// appendBlock writes a block of n states to l's file.
func (q *queue) appendBlock(l *level, b []byte, n int) error {
	w := &writer{l: l, q: q, buf: b}
	w.flush()
	if w.err != nil {
		return w.err
	}
	l.onDisk.Add(int64(n))
	return nil
}

// ckWriter writes a checkpoint's sections, hashing what it writes; the
// first error sticks.
type ckWriter struct {
	w   io.Writer
	h   hash.Hash
	err error
	tmp [binary.MaxVarintLen64]byte
}

func (w *ckWriter) raw(b []byte) {
	if w.err != nil {
		return
	}
	w.h.Write(b)
	_, w.err = w.w.Write(b)
}

func (w *ckWriter) uint(n uint64) { w.raw(binary.AppendUvarint(w.tmp[:0], n)) }
func (w *ckWriter) u64(n uint64)  { w.raw(binary.LittleEndian.AppendUint64(w.tmp[:0], n)) }
func (w *ckWriter) bytes(b []byte) {
	w.uint(uint64(len(b)))
	w.raw(b)
}
func (w *ckWriter) str(s string) { w.bytes([]byte(s)) }
func (w *ckWriter) strs(ss []string) {
	w.uint(uint64(len(ss)))
	for _, s := range ss {
		w.str(s)
	}
}

// sum appends the hash of everything written.
func (w *ckWriter) sum() {
	if w.err == nil {
		_, w.err = w.w.Write(w.h.Sum(nil))
	}
}

// ckReader reads what ckWriter wrote (once verifyCheckpoint checked its
// hash); the first error sticks, and lengths are bounded, so that a
// damaged file gives an error, not a huge allocation.
type ckReader struct {
	r   *bufio.Reader
	err error
}

func (r *ckReader) damaged() error {
	var d *CheckpointDamaged
	if errors.As(r.err, &d) {
		return d
	}
	why := r.err.Error()
	if errors.Is(r.err, io.EOF) || errors.Is(r.err, io.ErrUnexpectedEOF) {
		why = "it ends too early"
	}
	return &CheckpointDamaged{Why: why}
}

func (r *ckReader) raw(n int) []byte {
	if r.err != nil {
		return nil
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r.r, b); err != nil {
		r.err = err
		return nil
	}
	return b
}

func (r *ckReader) uint() uint64 {
	if r.err != nil {
		return 0
	}
	var buf [binary.MaxVarintLen64]byte
	for i := range buf {
		b, err := r.r.ReadByte()
		if err != nil {
			r.err = err
			return 0
		}
		buf[i] = b
		if b < 0x80 {
			n, k := binary.Uvarint(buf[:i+1])
			if k <= 0 {
				r.err = errors.New("a malformed number")
			}
			return n
		}
	}
	r.err = errors.New("a malformed number")
	return 0
}

func (r *ckReader) u64() uint64 {
	b := r.raw(8)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(b)
}

// maxSection bounds a length read from a checkpoint: 1 GiB (a level block
// is at most a few MB, a name short).
const maxSection = 1 << 30

func (r *ckReader) bytes() []byte {
	n := r.uint()
	if r.err == nil && n > maxSection {
		r.err = fmt.Errorf("a section of %d bytes", n)
	}
	if r.err != nil {
		return nil
	}
	// Read in steps so that a damaged length fails at the file's end
	// rather than allocating it whole.
	var out []byte
	for n > 0 && r.err == nil {
		k := min(n, 1<<20)
		out = append(out, r.raw(int(k))...)
		n -= k
	}
	return out
}

func (r *ckReader) str() string { return string(r.bytes()) }

func (r *ckReader) strs() []string {
	n := r.count(1)
	var out []string
	for i := uint64(0); i < n && r.err == nil; i++ {
		out = append(out, r.str())
	}
	return out
}

// count reads a number of items of size bytes each, refusing more than
// 1 TiB's worth.
func (r *ckReader) count(size uint64) uint64 {
	n := r.uint()
	if r.err == nil && n > (1<<40)/size {
		r.err = fmt.Errorf("a count of %d", n)
		return 0
	}
	return n
}

// The PROPERTIES' part of a checkpoint: the state graph kept for
// liveness, as recorded so far (the table of steps already handled is a
// cache, left out).

func (o *propObserver) saveState(w *ckWriter) {
	g := o.ps.graph
	if g == nil {
		w.uint(0)
		return
	}
	w.uint(1)
	w.uint(uint64(g.sw))
	w.uint(uint64(g.ew))
	w.uint(uint64(len(g.fps)))
	for _, fp := range g.fps {
		w.u64(fp)
	}
	w.uint(uint64(len(g.inits)))
	for _, id := range g.inits {
		w.uint(uint64(id))
	}
	for _, b := range g.nbits {
		w.u64(b)
	}
	for _, b := range g.sbits {
		w.u64(b)
	}
	for i := range g.shards {
		sh := &g.shards[i]
		w.uint(uint64(len(sh.steps)))
		for _, st := range sh.steps {
			w.u64(st.from)
			w.u64(st.to)
		}
		for _, b := range sh.bits {
			w.u64(b)
		}
	}
}

func (o *propObserver) loadState(r *ckReader) error {
	g := o.ps.graph
	has := r.uint() == 1
	if r.err != nil {
		return nil
	}
	if has != (g != nil) {
		return errors.New("its state graph is not for this check's properties")
	}
	if g == nil {
		return nil
	}
	if sw, ew := r.uint(), r.uint(); r.err == nil && (sw != uint64(g.sw) || ew != uint64(g.ew)) {
		return errors.New("its state graph is not for this check's properties")
	}
	n := r.count(8)
	for i := uint64(0); i < n && r.err == nil; i++ {
		fp := r.u64()
		g.ids[fp] = int32(len(g.fps))
		g.fps = append(g.fps, fp)
	}
	ni := r.count(1)
	for i := uint64(0); i < ni && r.err == nil; i++ {
		id := r.uint()
		if id >= n {
			return errors.New("an initial state of the state graph is out of range")
		}
		g.inits = append(g.inits, int32(id))
	}
	for i := uint64(0); i < n*uint64(g.sw) && r.err == nil; i++ {
		g.nbits = append(g.nbits, r.u64())
	}
	for i := uint64(0); i < n*uint64(g.ew) && r.err == nil; i++ {
		g.sbits = append(g.sbits, r.u64())
	}
	for si := range g.shards {
		sh := &g.shards[si]
		ns := r.count(16)
		for i := uint64(0); i < ns && r.err == nil; i++ {
			sh.steps = append(sh.steps, rawStep{r.u64(), r.u64()})
		}
		for i := uint64(0); i < ns*uint64(g.ew) && r.err == nil; i++ {
			sh.bits = append(sh.bits, r.u64())
		}
	}
	return nil
}
