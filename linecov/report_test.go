package linecov

import (
	"reflect"
	"strings"
	"testing"
)

// reportMeta is a program with functions in two files of a package (out
// of source order in the meta-data), a function literal, a method on a
// pointer, generated protobuf code, and a main package.
func reportMeta() *metaFile {
	return &metaFile{
		hash:        [16]byte{9},
		mode:        modeAtomic,
		granularity: granularityPerBlock,
		pkgs: []metaPackage{
			{path: "example.com/r", name: "r", module: "example.com/r", funcs: []metaFunc{
				{name: "*raft.Step", file: "example.com/r/raft.go", units: []metaUnit{
					{40, 2, 42, 3, 2}, {42, 3, 44, 4, 6}, {45, 2, 45, 20, 2},
				}},
				{name: "newRaft", file: "example.com/r/raft.go", units: []metaUnit{{10, 30, 20, 2, 5}}},
				{name: "*raft.Step.func1", file: "example.com/r/raft.go", lit: true, units: []metaUnit{{43, 10, 43, 30, 1}}},
				{name: "Bootstrap", file: "example.com/r/bootstrap.go", units: []metaUnit{{7, 1, 9, 2, 3}}},
				{name: "stepLeader", file: "example.com/r/raft.go", units: []metaUnit{{60, 2, 61, 3, 3}, {62, 2, 63, 3, 1}}},
			}},
			{path: "example.com/r/pb", name: "pb", module: "example.com/r", funcs: []metaFunc{
				{name: "*Entry.Marshal", file: "example.com/r/pb/r.pb.go", units: []metaUnit{{100, 1, 101, 2, 4}}},
				{name: "*Entry.Size", file: "example.com/r/pb/r.pb.go", units: []metaUnit{{200, 1, 200, 9, 1}}},
			}},
			{path: "example.com/r/cmd", name: "main", module: "example.com/r", funcs: []metaFunc{
				{name: "main", file: "example.com/r/cmd/main.go", units: []metaUnit{{3, 13, 5, 2, 2}}},
			}},
		},
	}
}

func TestFuncs(t *testing.T) {
	var counters []byte
	tr := fakeTracker(t, reportMeta(), &counters)
	var got []string
	for _, f := range tr.Funcs() {
		got = append(got, f.Package+" "+f.File+" "+f.Name)
		if len(f.Units) == 0 {
			t.Errorf("%s has no units", f.Name)
		}
		stmts := 0
		for _, it := range f.Units {
			stmts += tr.Statements(it)
			if d := tr.Describe(it); !strings.HasSuffix(d, "(r."+f.Name+")") && !strings.HasSuffix(d, "(pb."+f.Name+")") {
				t.Errorf("unit of %s: Describe = %q", f.Name, d)
			}
		}
		if stmts != f.Statements {
			t.Errorf("%s: Statements = %d, its units have %d", f.Name, f.Statements, stmts)
		}
	}
	want := []string{
		"example.com/r example.com/r/bootstrap.go Bootstrap",
		"example.com/r/pb example.com/r/pb/r.pb.go (*Entry).Marshal",
		"example.com/r/pb example.com/r/pb/r.pb.go (*Entry).Size",
		"example.com/r example.com/r/raft.go newRaft",
		"example.com/r example.com/r/raft.go (*raft).Step",
		"example.com/r example.com/r/raft.go (*raft).Step.func1",
		"example.com/r example.com/r/raft.go stepLeader",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Funcs:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	f := tr.Funcs()[4]
	if f.Line != 40 || f.Statements != 10 || len(f.Units) != 3 || f.Literal || !tr.Funcs()[5].Literal {
		t.Errorf("(*raft).Step: %+v", f)
	}
}

func TestCoverageReport(t *testing.T) {
	m := reportMeta()
	var counters []byte
	tr := fakeTracker(t, m, &counters)
	r := m.pkgs[0].funcs
	step, lit, leader, marshal := r[0], r[2], r[4], m.pkgs[1].funcs[0]
	covered := []uint64{
		item(t, tr, "example.com/r", "*raft.Step", step.units[0]),
		item(t, tr, "example.com/r", "*raft.Step", step.units[2]),
		item(t, tr, "example.com/r", "*raft.Step.func1", lit.units[0]),
		item(t, tr, "example.com/r", "stepLeader", leader.units[0]),
		item(t, tr, "example.com/r/pb", "*Entry.Marshal", marshal.units[0]),
		item(t, tr, "example.com/r/pb", "*Entry.Marshal", marshal.units[0]), // twice
		12345, // no unit
	}
	c := tr.Coverage(covered)
	if len(c.Funcs) != 7 {
		t.Fatalf("%d functions, want 7", len(c.Funcs))
	}
	// Lines: raft.go 40-42, 45, 43 (the literal), 60-61; r.pb.go 100-101;
	// of 10-20, 40-45, 60-63, 7-9, 100-101, 200.
	if c.Lines != 9 || c.TotalLines != 27 {
		t.Errorf("lines %d / %d, want 9 / 27", c.Lines, c.TotalLines)
	}
	var b strings.Builder
	if err := c.WriteReport(&b, ReportOptions{Title: "the title", Notes: []string{"a note"}}); err != nil {
		t.Fatal(err)
	}
	want := `# the title
# functions reached: 4 / 7 (57.1%)
# statements reached: 12 / 28 (42.9%)
# lines reached: 9 / 27 (33.3%)
# generated code (example.com/r/pb/r.pb.go), counted above, not listed: functions reached 1 / 2, statements 4 / 5
# a note
# never reached: 2 functions, 8 statements (by file and line)
example.com/r/bootstrap.go:7 Bootstrap (3 statements)
example.com/r/raft.go:10 newRaft (5 statements)
# partially covered: 2 functions (lowest statement coverage first)
example.com/r/raft.go:40 (*raft).Step 40.0% (4 / 10 statements)
example.com/r/raft.go:60 stepLeader 75.0% (3 / 4 statements)
`
	if b.String() != want {
		t.Errorf("report:\n%s\nwant\n%s", b.String(), want)
	}

	// Nothing covered, no generated code: every function is listed.
	b.Reset()
	if err := tr.Coverage(nil).WriteReport(&b, ReportOptions{Generated: func(string) bool { return false }}); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, s := range []string{"# functions reached: 0 / 7 (0.0%)\n", "# never reached: 7 functions, 28 statements",
		"\nexample.com/r/pb/r.pb.go:200 (*Entry).Size (1 statements)\n", "# partially covered: 0 functions"} {
		if !strings.Contains(got, s) {
			t.Errorf("report of nothing covered lacks %q:\n%s", s, got)
		}
	}
	if strings.Contains(got, "generated") || strings.HasPrefix(got, "# \n") {
		t.Errorf("report without generated code or title:\n%s", got)
	}
}
