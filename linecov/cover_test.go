package linecov

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// These tests build testdata/covercheck with coverage of testdata/sample
// (the way make cover builds the fuzzer) and run it: the real runtime's
// bytes, decoded by the real Tracker.

const (
	samplePath     = "github.com/modelfuzz/modelfuzz/linecov/testdata/sample"
	covercheckPath = "github.com/modelfuzz/modelfuzz/linecov/testdata/covercheck"
)

var (
	helperDir  string
	helperOnce sync.Once
	helperBin  string
	helperErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if helperDir != "" {
		os.RemoveAll(helperDir)
	}
	os.Exit(code)
}

// coverHelper builds covercheck once per test binary.
func coverHelper(tb testing.TB) string {
	tb.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		tb.Skipf("no go command to build the coverage helper: %v", err)
	}
	helperOnce.Do(func() {
		helperDir, helperErr = os.MkdirTemp("", "linecov-test-")
		if helperErr != nil {
			return
		}
		helperBin = filepath.Join(helperDir, "covercheck")
		cmd := exec.Command(goCmd, "build", "-cover", "-covermode=atomic",
			"-coverpkg="+samplePath+","+covercheckPath, "-o", helperBin, "./testdata/covercheck")
		if out, err := cmd.CombinedOutput(); err != nil {
			helperErr = fmt.Errorf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, out)
		}
	})
	if helperErr != nil {
		tb.Fatal(helperErr)
	}
	return helperBin
}

// coverReport mirrors covercheck's Report.
type coverReport struct {
	Packages        []string        `json:"packages"`
	TotalStatements int             `json:"total_statements"`
	Units           int             `json:"units"`
	None            coverExecReport `json:"none"`
	A               coverExecReport `json:"a"`
	ACapped         coverExecReport `json:"a_capped"`
	AAgain          coverExecReport `json:"a_again"`
	B               coverExecReport `json:"b"`
	Meta            []byte          `json:"meta"`
	CountersA       []byte          `json:"counters_a"`
	Unknown         int             `json:"unknown_statements"`
}

type coverExecReport struct {
	Items      []uint64 `json:"items"`
	Describe   []string `json:"describe"`
	Statements int      `json:"statements"`
}

func runCheck(t *testing.T) *coverReport {
	t.Helper()
	cmd := exec.Command(coverHelper(t), "check")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("covercheck check: %v\n%s", err, stderr.Bytes())
	}
	var rep coverReport
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("covercheck check: %v\n%s", err, out)
	}
	return &rep
}

// sampleMarks returns the lines of testdata/sample/sample.go marked
// "// unit:NAME", by name.
func sampleMarks(t *testing.T) map[string]int {
	t.Helper()
	f, err := os.Open("testdata/sample/sample.go")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	marks := map[string]int{}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		if _, name, ok := strings.Cut(sc.Text(), "// unit:"); ok {
			marks[name] = line
		}
	}
	if len(marks) != 6 {
		t.Fatalf("found marks %v in sample.go, want 6", marks)
	}
	return marks
}

var describeRE = regexp.MustCompile(`^(\S+):(\d+)\.(\d+),(\d+)\.(\d+) \((\S+)\)$`)

type span struct {
	file                                 string
	startLine, startCol, endLine, endCol int
	fn                                   string
}

func parseDescribe(t *testing.T, d string) span {
	t.Helper()
	m := describeRE.FindStringSubmatch(d)
	if m == nil {
		t.Fatalf("Describe = %q, want file:line.col,line.col (func)", d)
	}
	n := func(s string) int { v, _ := strconv.Atoi(s); return v }
	return span{m[1], n(m[2]), n(m[3]), n(m[4]), n(m[5]), m[6]}
}

// checkExecution checks that the units an execution covered are in
// sample.go, in function fn, that they span the marked lines want and
// none of the marked lines not.
func checkExecution(t *testing.T, name string, ex coverExecReport, fn string, want, not []string) {
	t.Helper()
	marks := sampleMarks(t)
	if len(ex.Items) != len(ex.Describe) {
		t.Fatalf("%s: %d items, %d descriptions", name, len(ex.Items), len(ex.Describe))
	}
	var spans []span
	for i, d := range ex.Describe {
		s := parseDescribe(t, d)
		if s.file != samplePath+"/sample.go" || s.fn != fn {
			t.Errorf("%s: covered %q, want a unit of %s in %s/sample.go", name, d, fn, samplePath)
		}
		// The item is the documented hash of the unit Describe names.
		pkgFn := strings.TrimPrefix(strings.NewReplacer("(", "", ")", "").Replace(fn), "sample.")
		if it := Item(samplePath, pkgFn, s.startLine, s.startCol, s.endLine, s.endCol); it != ex.Items[i] {
			t.Errorf("%s: item %x of %q, want Item(...) = %x", name, ex.Items[i], d, it)
		}
		spans = append(spans, s)
	}
	covers := func(line int) bool {
		for _, s := range spans {
			if s.startLine <= line && line <= s.endLine {
				return true
			}
		}
		return false
	}
	for _, m := range want {
		if !covers(marks[m]) {
			t.Errorf("%s: line %d (%s) not covered; covered %q", name, marks[m], m, ex.Describe)
		}
	}
	for _, m := range not {
		// A unit that starts on the line before ends where the marked
		// line's block begins: look at the line's own unit only.
		for _, s := range spans {
			if s.startLine <= marks[m] && marks[m] < s.endLine || s.startLine == marks[m] {
				t.Errorf("%s: line %d (%s) covered by %+v", name, marks[m], m, s)
			}
		}
	}
}

func TestCoverBuild(t *testing.T) {
	rep := runCheck(t)
	if !slices.Equal(rep.Packages, []string{samplePath}) {
		t.Errorf("Packages() = %q, want only %s (the main package is not tracked)", rep.Packages, samplePath)
	}
	if rep.Units != 8 || rep.TotalStatements != 9 {
		t.Errorf("%d units with %d statements, want 8 with 9 (sample.go)", rep.Units, rep.TotalStatements)
	}
	if rep.Unknown != 0 {
		t.Errorf("Statements(unknown item) = %d", rep.Unknown)
	}
	if len(rep.None.Items) != 0 {
		t.Errorf("nothing executed, covered %q", rep.None.Describe)
	}
	checkExecution(t, "A(1)", rep.A, "sample.A", []string{"A-entry", "A-small"}, []string{"A-capped"})
	checkExecution(t, "A(100)", rep.ACapped, "sample.A", []string{"A-entry", "A-capped"}, []string{"A-small"})
	checkExecution(t, "B(3)", rep.B, "sample.(*Counter).B", []string{"B-literal", "B-loop", "B-exit"}, nil)
	if !slices.Equal(rep.A.Items, rep.AAgain.Items) {
		t.Errorf("A(1) twice covered %x, then %x", rep.A.Items, rep.AAgain.Items)
	}
	for _, it := range rep.B.Items {
		if slices.Contains(rep.A.Items, it) {
			t.Errorf("A and B share item %x", it)
		}
	}
	for name, ex := range map[string]coverExecReport{"A(1)": rep.A, "A(100)": rep.ACapped, "B(3)": rep.B} {
		if ex.Statements <= 0 || ex.Statements >= rep.TotalStatements {
			t.Errorf("%s covered %d of %d statements, want some but not all", name, ex.Statements, rep.TotalStatements)
		}
	}
	if rep.A.Statements != 3 || rep.B.Statements != 5 {
		t.Errorf("A(1) covered %d statements, B(3) %d; want 3 and 5", rep.A.Statements, rep.B.Statements)
	}

	// The runtime's bytes decode the same in this process.
	m, err := decodeMeta(rep.Meta)
	if err != nil {
		t.Fatal(err)
	}
	counters := rep.CountersA
	tr := fakeTracker(t, m, &counters)
	if tr.Units() != rep.Units || tr.TotalStatements() != rep.TotalStatements {
		t.Errorf("decoded here: %d units with %d statements; in covercheck %d with %d",
			tr.Units(), tr.TotalStatements(), rep.Units, rep.TotalStatements)
	}
	tr.Reset()
	got, err := tr.Covered(nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, rep.A.Items) {
		t.Errorf("counters of A(1) decoded here: %x, in covercheck %x", got, rep.A.Items)
	}

	// Items are the same in another run.
	if again := runCheck(t); !slices.Equal(again.B.Items, rep.B.Items) {
		t.Errorf("B(3) covered %x, in another run %x", rep.B.Items, again.B.Items)
	}
}

// The runtime writes ULEB128 counters, one segment, and records only for
// functions with a non-zero counter.
func TestRuntimeCounterFormat(t *testing.T) {
	rep := runCheck(t)
	var c counterReader
	if err := c.init(rep.CountersA); err != nil {
		t.Fatal(err)
	}
	if c.flavor != flavorULEB || c.nsegs != 1 {
		t.Errorf("runtime counters: flavor %d, %d segments; want ULEB128 (%d), 1", c.flavor, c.nsegs, flavorULEB)
	}
	var recs []funcRecord
	for {
		var r funcRecord
		ok, err := c.next(&r)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		recs = append(recs, r)
	}
	// After Reset and A(1): A's record; covercheck's main function (whose
	// counters the Reset cleared while it ran) may follow.
	if len(recs) == 0 || recs[0].fn != 0 || !slices.Equal(recs[0].counters, []uint32{1, 1, 0}) {
		t.Errorf("records %+v, want first A's: counters 1 1 0", recs)
	}
	for _, r := range recs {
		if !slices.ContainsFunc(r.counters, func(v uint32) bool { return v != 0 }) {
			t.Errorf("record %+v has no non-zero counter", r)
		}
	}
}

// BenchmarkCovered measures what every execution pays: Reset, running a
// little code, Covered. It needs a coverage build, so it runs in
// covercheck (which reports the ns/op); allocations are the runtime's
// WriteCounters'.
func BenchmarkCovered(b *testing.B) {
	bin := coverHelper(b)
	out, err := exec.Command(bin, "bench", strconv.Itoa(b.N)).Output()
	if err != nil {
		b.Fatalf("covercheck bench: %v", err)
	}
	var res struct {
		NsPerOp float64 `json:"ns_per_op"`
		Allocs  float64 `json:"allocs_per_op"`
		Bytes   float64 `json:"bytes_per_op"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(res.NsPerOp, "ns/op")
	b.ReportMetric(res.Allocs, "allocs/op")
	b.ReportMetric(res.Bytes, "B/op")
}

// BenchmarkDecode measures linecov's own part of Covered: decoding counter
// data of 100 live functions with 1000 counters, about what an etcd raft
// execution leaves.
func BenchmarkDecode(b *testing.B) {
	m := &metaFile{hash: [16]byte{1}, mode: modeAtomic, granularity: granularityPerBlock}
	var recs []funcRecord
	for pi := range 10 {
		pkg := metaPackage{path: fmt.Sprintf("example.com/p%d", pi), name: "p"}
		for fi := range 50 {
			f := metaFunc{name: fmt.Sprintf("F%d", fi), file: "f.go"}
			for ui := range 10 {
				f.units = append(f.units, metaUnit{uint32(ui), 1, uint32(ui + 1), 1, 1})
			}
			pkg.funcs = append(pkg.funcs, f)
			if fi%5 == 0 {
				recs = append(recs, funcRecord{pkg: uint32(pi), fn: uint32(fi), counters: []uint32{1, 0, 3, 0, 200, 0, 0, 1, 1, 0}})
			}
		}
		m.pkgs = append(m.pkgs, pkg)
	}
	counters := counterEncoding{hash: m.hash, flavor: flavorULEB, args: [][2]string{{"argc", "1"}, {"argv0", "modelfuzz-cover"}}}.encode(recs)
	p, err := newProgram(m)
	if err != nil {
		b.Fatal(err)
	}
	tr := newTracker(p, nil, nil)
	var dst []uint64
	b.ReportAllocs()
	for b.Loop() {
		if dst, err = tr.covered(dst[:0], counters); err != nil {
			b.Fatal(err)
		}
	}
	if len(dst) != 100*5 {
		b.Fatalf("%d items, want 500", len(dst))
	}
}
