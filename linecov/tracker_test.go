package linecov

import (
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
)

// The test binary has no usable coverage meta-data, built with -cover or
// not (go test -cover writes it only at exit).
func TestAvailableWithoutCoverBuild(t *testing.T) {
	err := Available()
	if err == nil {
		t.Fatal("Available() = nil in a test binary")
	}
	for _, want := range []string{"not built with -cover", "make cover", "-covermode=atomic", "-coverpkg="} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Available() = %q, want it to mention %q", err, want)
		}
	}
	if tr, err2 := NewTracker(); tr != nil || err2 == nil || err2.Error() != err.Error() {
		t.Errorf("NewTracker() = %v, %v; want nil and the error of Available", tr, err2)
	}
}

// fakeTracker returns a tracker of the program m whose counters are the
// bytes *counters.
func fakeTracker(t *testing.T, m *metaFile, counters *[]byte) *Tracker {
	t.Helper()
	p, err := newProgram(m)
	if err != nil {
		t.Fatal(err)
	}
	cleared := false
	return newTracker(p, func() error { cleared = true; return nil }, func(w io.Writer) error {
		if !cleared {
			return errors.New("counters read before Reset")
		}
		_, err := w.Write(*counters)
		return err
	})
}

func item(t *testing.T, tr *Tracker, pkg, fn string, u metaUnit) uint64 {
	t.Helper()
	it := Item(pkg, fn, int(u.startLine), int(u.startCol), int(u.endLine), int(u.endCol))
	if tr.Statements(it) != int(u.stmts) {
		t.Errorf("Statements(%s %s %v) = %d, want %d", pkg, fn, u, tr.Statements(it), u.stmts)
	}
	return it
}

func TestTrackerSynthetic(t *testing.T) {
	m := testMeta()
	p0, q := m.pkgs[0], m.pkgs[2]
	var counters []byte
	tr := fakeTracker(t, m, &counters)
	if got, want := tr.TotalStatements(), 2+1+1+(1<<20)+3; got != want {
		t.Errorf("TotalStatements() = %d, want %d (main package excluded)", got, want)
	}
	if got, want := tr.Packages(), []string{"example.com/m/p", "example.com/m/q"}; !slices.Equal(got, want) {
		t.Errorf("Packages() = %q, want %q", got, want)
	}
	if got := tr.Units(); got != 5 {
		t.Errorf("Units() = %d, want 5", got)
	}
	if err := tr.Reset(); err != nil {
		t.Fatal(err)
	}
	enc := counterEncoding{hash: m.hash, flavor: flavorULEB}
	counters = enc.encode([]funcRecord{
		{pkg: 2, fn: 1, counters: []uint32{4}},
		{pkg: 1, fn: 0, counters: []uint32{1}}, // main: ignored
		{pkg: 0, fn: 0, counters: []uint32{0, 7, 1}},
	})
	prefix := []uint64{99}
	got, err := tr.Covered(prefix)
	if err != nil {
		t.Fatal(err)
	}
	want := []uint64{99,
		item(t, tr, q.path, "F", q.funcs[1].units[0]),
		item(t, tr, p0.path, "*T.Step", p0.funcs[0].units[1]),
		item(t, tr, p0.path, "*T.Step", p0.funcs[0].units[2]),
	}
	if !slices.Equal(got, want) {
		t.Errorf("Covered = %x, want %x", got, want)
	}
	if d, want := tr.Describe(want[2]), "example.com/m/p/t.go:12.3,14.4 (p.(*T).Step)"; d != want {
		t.Errorf("Describe = %q, want %q", d, want)
	}
	if d, want := tr.Describe(want[1]), "example.com/m/q/q.go:7.1,9.2 (q.F)"; d != want {
		t.Errorf("Describe = %q, want %q", d, want)
	}
	if d := tr.Describe(12345); !strings.Contains(d, "unknown") {
		t.Errorf("Describe(unknown) = %q", d)
	}
	mainItem := Item("example.com/m/cmd", "main", 3, 13, 5, 2)
	if tr.Statements(mainItem) != 0 || tr.Statements(12345) != 0 {
		t.Errorf("Statements of untracked items = %d, %d; want 0", tr.Statements(mainItem), tr.Statements(12345))
	}

	// The same function in two segments (a merged file): each item once.
	counters = enc.encode(
		[]funcRecord{{pkg: 0, fn: 0, counters: []uint32{1, 0, 0}}},
		[]funcRecord{{pkg: 0, fn: 0, counters: []uint32{1, 1, 0}}},
	)
	got, err = tr.Covered(nil)
	if err != nil {
		t.Fatal(err)
	}
	want = []uint64{
		item(t, tr, p0.path, "*T.Step", p0.funcs[0].units[0]),
		item(t, tr, p0.path, "*T.Step", p0.funcs[0].units[1]),
	}
	if !slices.Equal(got, want) {
		t.Errorf("Covered of two segments = %x, want %x", got, want)
	}

	// No live function: nothing.
	counters = enc.encode(nil)
	if got, err := tr.Covered(nil); err != nil || len(got) != 0 {
		t.Errorf("Covered without records = %x, %v", got, err)
	}
}

func TestCoveredRejectsBadRecords(t *testing.T) {
	m := testMeta()
	var counters []byte
	tr := fakeTracker(t, m, &counters)
	tr.Reset()
	enc := counterEncoding{hash: m.hash, flavor: flavorULEB}
	other := enc
	other.hash[0]++
	for _, c := range []struct {
		name string
		b    []byte
		want string
	}{
		{"package out of range", enc.encode([]funcRecord{{pkg: 3, fn: 0, counters: []uint32{1}}}), "package 3 out of range"},
		{"function out of range", enc.encode([]funcRecord{{pkg: 0, fn: 2, counters: []uint32{1}}}), "function 2 out of range"},
		{"counter count", enc.encode([]funcRecord{{pkg: 0, fn: 0, counters: []uint32{1, 1}}}), "has 2 counters, the meta-data 3 units"},
		{"main's counter count", enc.encode([]funcRecord{{pkg: 1, fn: 0, counters: []uint32{1, 1}}}), "has 2 counters"},
		{"other program", other.encode(nil), "counter data of meta-data"},
		{"garbage", []byte("not coverage counters at all, clearly, and long enough for a header"), "bad magic"},
		{"valid record then a bad one", enc.encode([]funcRecord{
			{pkg: 0, fn: 1, counters: []uint32{1}},
			{pkg: 9, fn: 0, counters: []uint32{1}},
		}), "package 9"},
	} {
		counters = c.b
		dst := []uint64{7}
		got, err := tr.Covered(dst)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
		if !slices.Equal(got, dst) {
			t.Errorf("%s: Covered returned %x, want dst unchanged", c.name, got)
		}
	}
}

func TestNewProgramRejects(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(m *metaFile)
		want string
	}{
		{"set mode", func(m *metaFile) { m.mode = modeSet }, "-covermode=set"},
		{"count mode", func(m *metaFile) { m.mode = modeCount }, "-covermode=count"},
		{"per-function counters", func(m *metaFile) { m.granularity = granularityPerFunc }, "counter per block"},
		{"only main", func(m *metaFile) { m.pkgs = m.pkgs[1:2] }, "instruments no code outside its main package"},
		{"no packages", func(m *metaFile) { m.pkgs = nil }, "instruments no code"},
	} {
		m := testMeta()
		c.edit(m)
		p, err := newProgram(m)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "make cover") {
			t.Errorf("%s: newProgram = %v, %v; want an error mentioning %q and make cover", c.name, p, err, c.want)
		}
	}
}

// Two units that share package, function and span still get two items.
func TestDuplicateUnits(t *testing.T) {
	m := testMeta()
	f := &m.pkgs[2].funcs[1]
	f.units = append(f.units, f.units[0])
	var counters []byte
	tr := fakeTracker(t, m, &counters)
	tr.Reset()
	counters = counterEncoding{hash: m.hash, flavor: flavorRaw}.encode([]funcRecord{{pkg: 2, fn: 1, counters: []uint32{1, 1}}})
	got, err := tr.Covered(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] == got[1] {
		t.Fatalf("Covered = %x, want two distinct items", got)
	}
	if got[0] != Item("example.com/m/q", "F", 7, 1, 9, 2) {
		t.Errorf("the first of the duplicates has item %x, want Item(...)", got[0])
	}
	if d0, d1 := tr.Describe(got[0]), tr.Describe(got[1]); d0 != d1 || tr.Statements(got[1]) != 3 {
		t.Errorf("duplicates describe as %q and %q with %d statements", d0, d1, tr.Statements(got[1]))
	}
}

func TestItemStable(t *testing.T) {
	// Items are stored in corpora: they must not change between releases,
	// and they follow the documented definition.
	got := Item("go.etcd.io/raft/v3", "*raft.Step", 123, 2, 125, 3)
	if want := xxhash.Sum64String("go.etcd.io/raft/v3\x00*raft.Step\x00123:2-125:3"); got != want {
		t.Errorf("Item = %#x, want the xxhash of the documented text, %#x", got, want)
	}
	if want := uint64(0x592571f6653183e2); got != want {
		t.Errorf("Item = %#x, want %#x as in earlier releases", got, want)
	}
	if Item("a", "b", 1, 2, 3, 4) == Item("a", "b", 1, 2, 3, 5) || Item("a", "bc", 1, 2, 3, 4) == Item("ab", "c", 1, 2, 3, 4) {
		t.Error("different units share an item")
	}
}

func TestDisplayName(t *testing.T) {
	for in, want := range map[string]string{
		"*raft.Step":     "(*raft).Step",
		"raft.Step":      "raft.Step",
		"newRaft":        "newRaft",
		"*raft.Step.gf1": "(*raft).Step.gf1",
		"*":              "*",
	} {
		if got := displayName(in); got != want {
			t.Errorf("displayName(%q) = %q, want %q", in, got, want)
		}
	}
}
