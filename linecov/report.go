package linecov

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
)

// ReportOptions shape Coverage.WriteReport's text.
type ReportOptions struct {
	// Title is the first header line ("" for none).
	Title string
	// Notes are more header lines, after the totals (e.g. the lines the
	// campaign reports).
	Notes []string
	// Generated reports whether a file is generated code: its functions
	// count in the totals but are listed in neither section, only counted
	// on a line of their own. nil: IsGenerated.
	Generated func(file string) bool
}

// IsGenerated reports whether file is generated protobuf code (*.pb.go,
// such as go.etcd.io/raft/v3/raftpb/raft.pb.go).
func IsGenerated(file string) bool { return strings.HasSuffix(file, ".pb.go") }

// WriteReport writes c as plain text: a header of lines starting with "# "
// (the title; functions, statements and lines reached, over every
// function; the generated code's share; the notes), then the functions
// with no covered unit, one a line, by file and line:
//
//	go.etcd.io/raft/v3/raft.go:123 (*raft).foo (12 statements)
//
// then, after a "# partially covered" line, the reached functions with
// statements not covered, the lowest share first:
//
//	go.etcd.io/raft/v3/raft.go:456 (*raft).Step 37.5% (6 / 16 statements)
func (c *Coverage) WriteReport(w io.Writer, opt ReportOptions) error {
	gen := opt.Generated
	if gen == nil {
		gen = IsGenerated
	}
	type tally struct{ funcs, reached, stmts, covered int }
	var all, generated tally
	var genFiles []string
	var never, partial []*FuncCoverage
	for i := range c.Funcs {
		f := &c.Funcs[i]
		add := func(t *tally) {
			t.funcs++
			t.stmts += f.Statements
			t.covered += f.CoveredStatements
			if f.Reached() {
				t.reached++
			}
		}
		add(&all)
		switch {
		case gen(f.File):
			add(&generated)
			if !slices.Contains(genFiles, f.File) {
				genFiles = append(genFiles, f.File)
			}
		case !f.Reached():
			never = append(never, f)
		case f.CoveredStatements < f.Statements:
			partial = append(partial, f)
		}
	}
	slices.SortStableFunc(partial, func(a, b *FuncCoverage) int {
		// Compare the fractions exactly: a/b < c/d when a*d < c*b.
		return cmp.Compare(a.CoveredStatements*b.Statements, b.CoveredStatements*a.Statements)
	})
	neverStmts := 0
	for _, f := range never {
		neverStmts += f.Statements
	}

	bw := bufio.NewWriter(w)
	if opt.Title != "" {
		fmt.Fprintf(bw, "# %s\n", opt.Title)
	}
	fmt.Fprintf(bw, "# functions reached: %d / %d (%s)\n", all.reached, all.funcs, percent(all.reached, all.funcs))
	fmt.Fprintf(bw, "# statements reached: %d / %d (%s)\n", all.covered, all.stmts, percent(all.covered, all.stmts))
	fmt.Fprintf(bw, "# lines reached: %d / %d (%s)\n", c.Lines, c.TotalLines, percent(c.Lines, c.TotalLines))
	if generated.funcs > 0 {
		fmt.Fprintf(bw, "# generated code (%s), counted above, not listed: functions reached %d / %d, statements %d / %d\n",
			strings.Join(genFiles, ", "), generated.reached, generated.funcs, generated.covered, generated.stmts)
	}
	for _, n := range opt.Notes {
		fmt.Fprintf(bw, "# %s\n", n)
	}
	fmt.Fprintf(bw, "# never reached: %d functions, %d statements (by file and line)\n", len(never), neverStmts)
	for _, f := range never {
		fmt.Fprintf(bw, "%s:%d %s (%d statements)\n", f.File, f.Line, f.Name, f.Statements)
	}
	fmt.Fprintf(bw, "# partially covered: %d functions (lowest statement coverage first)\n", len(partial))
	for _, f := range partial {
		fmt.Fprintf(bw, "%s:%d %s %.1f%% (%d / %d statements)\n", f.File, f.Line, f.Name, f.Percent(), f.CoveredStatements, f.Statements)
	}
	return bw.Flush()
}

func percent(n, total int) string {
	if total == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(total))
}
