package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tlcCovQueue is the real TLC's -coverage report (tla2tools.jar at
// cc6b616, -workers 1) of testdata/CovQueue.tla, without its variables'
// lines: each action, the initial predicate and each invariant, with the
// expressions evaluated in it.
const tlcCovQueue = `<Init line 12, col 1 to line 12, col 4 of module CovQueue>: 1:1
  line 13, col 6 to line 13, col 17 of module CovQueue: 1
  line 14, col 13 to line 14, col 35 of module CovQueue: 1:2
  |line 14, col 20 to line 14, col 28 of module CovQueue: 1
  line 15, col 6 to line 15, col 17 of module CovQueue: 1
<Send line 17, col 1 to line 17, col 7 of module CovQueue>: 46:46
  line 18, col 6 to line 18, col 10 of module CovQueue: 172
  |line 18, col 7 to line 18, col 10 of module CovQueue: 126
  line 19, col 6 to line 19, col 16 of module CovQueue: 46
  |line 19, col 6 to line 19, col 12 of module CovQueue: 78
  line 20, col 6 to line 20, col 56 of module CovQueue: 46
  line 21, col 6 to line 21, col 39 of module CovQueue: 46
  line 22, col 6 to line 22, col 19 of module CovQueue: 46
<Take line 24, col 1 to line 24, col 4 of module CovQueue>: 8:26
  line 25, col 6 to line 25, col 10 of module CovQueue: 89
  |line 25, col 7 to line 25, col 10 of module CovQueue: 63
  line 26, col 6 to line 26, col 18 of module CovQueue: 61
  |line 26, col 6 to line 26, col 10 of module CovQueue: 35
  |line 26, col 15 to line 26, col 18 of module CovQueue: 35
  line 27, col 6 to line 27, col 17 of module CovQueue: 26
  line 28, col 6 to line 28, col 25 of module CovQueue: 26
  line 29, col 6 to line 29, col 19 of module CovQueue: 26
<Done line 31, col 1 to line 31, col 4 of module CovQueue>: 8:28
  line 32, col 6 to line 32, col 9 of module CovQueue: 28
  line 33, col 6 to line 33, col 18 of module CovQueue: 28
  line 34, col 6 to line 34, col 30 of module CovQueue: 28
<TypeOK line 40, col 1 to line 40, col 6 of module CovQueue>
  line 41, col 3 to line 42, col 42 of module CovQueue: 63
  |line 41, col 6 to line 41, col 48 of module CovQueue: 63
  |line 42, col 6 to line 42, col 42 of module CovQueue: 63
  ||line 42, col 27 to line 42, col 42 of module CovQueue: 126
  ||line 42, col 15 to line 42, col 23 of module CovQueue: 63
<Bounded line 44, col 1 to line 44, col 7 of module CovQueue>
  line 44, col 12 to line 44, col 28 of module CovQueue: 63`

// tlcCovRec is the real TLC's report of testdata/CovRec.tla: a
// recursive operator's lines, which do not grow with the recursion.
const tlcCovRec = `<Init line 10, col 1 to line 10, col 4 of module CovRec>: 1:1
  line 10, col 9 to line 10, col 13 of module CovRec: 1
<Next line 12, col 1 to line 12, col 4 of module CovRec>: 4:4
  line 12, col 9 to line 12, col 13 of module CovRec: 4
  |line 12, col 9 to line 12, col 9 of module CovRec: 5
  line 12, col 18 to line 12, col 27 of module CovRec: 4
<Small line 14, col 1 to line 14, col 5 of module CovRec>
  line 14, col 10 to line 14, col 21 of module CovRec: 5
  |line 14, col 10 to line 14, col 15 of module CovRec: 5
  ||line 8, col 11 to line 8, col 45 of module CovRec: 15
  |||line 8, col 14 to line 8, col 18 of module CovRec: 15
  |||line 8, col 32 to line 8, col 45 of module CovRec: 10
  ||line 14, col 14 to line 14, col 14 of module CovRec: 5`

// coverageExprs keeps the lines of -coverage's report other than the
// variables' (whose counts are TLC's estimates) and the first and last.
func coverageExprs(out string) []string {
	vars := regexp.MustCompile(`^<\w+ line [^>]*>: \d+$`)
	var keep []string
	in := false
	for _, l := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(l, "The coverage statistics at "):
			in = true
		case l == "End of statistics.":
			in = false
		case in && !vars.MatchString(l):
			keep = append(keep, l)
		}
	}
	return keep
}

// TestCoverageExpressions checks -coverage's report of every expression
// against TLC's, with one worker and with two: the counts of a complete
// search do not depend on how it is shared.
func TestCoverageExpressions(t *testing.T) {
	for _, workers := range []string{"1", "2"} {
		res := tlcIn(t, tlcData, "tlc", "check", "-workers", workers, "-coverage", "1", "-config", "CovQueue.cfg", "CovQueue")
		require.Equal(t, 0, res.code, res.stdout+res.stderr)
		assert.Equal(t, strings.Split(tlcCovQueue, "\n"), coverageExprs(res.stdout), "-workers %s", workers)
	}
	res := tlcIn(t, tlcData, "tlc", "check", "-workers", "1", "-coverage", "1", "-config", "CovRec.cfg", "CovRec")
	require.Equal(t, 0, res.code, res.stdout+res.stderr)
	assert.Equal(t, strings.Split(tlcCovRec, "\n"), coverageExprs(res.stdout))
}

// coverageCases are specs whose -coverage report is TLC's line for line
// (but for the variables' estimates): our CovQueue and CovRec, and three of the
// Examples, when they are beside the repository.
var coverageCases = []struct{ dir, spec, cfg string }{
	{tlcData, "CovQueue.tla", "CovQueue.cfg"},
	{tlcData, "CovRec.tla", "CovRec.cfg"},
	{"../../../shared/tla-examples/specifications/transaction_commit", "TCommit.tla", "TCommit.cfg"},
	{"../../../shared/tla-examples/specifications/barriers", "Barrier.tla", "Barrier.cfg"},
	{"../../../shared/tla-examples/specifications/SpecifyingSystems/HourClock", "HourClock.tla", "HourClock.cfg"},
}

// TestCoverageExpressionsAgainstTLC runs the real TLC, when it is beside
// the repository, on the coverage cases and compares its report with
// ours: the same lines, in the same order, with the same counts.
func TestCoverageExpressionsAgainstTLC(t *testing.T) {
	jar := realTLC(t)
	for _, c := range coverageCases {
		t.Run(c.spec, func(t *testing.T) {
			if _, err := os.Stat(filepath.Join(c.dir, c.spec)); err != nil {
				t.Skipf("the Examples are not here (%v)", err)
			}
			cmd := exec.Command("java", "-XX:+UseParallelGC", "-cp", jar, "tlc2.TLC", "-workers", "1", "-metadir", t.TempDir(),
				"-noGenerateSpecTE", "-coverage", "1", "-config", c.cfg, c.spec)
			cmd.Dir = c.dir
			out, _ := cmd.CombinedOutput()
			require.Equal(t, 0, cmd.ProcessState.ExitCode(), string(out))
			res := tlcIn(t, c.dir, "tlc", "check", "-workers", "1", "-noGenerateSpecTE", "-coverage", "1", "-config", c.cfg, c.spec)
			require.Equal(t, 0, res.code, res.stdout+res.stderr)
			want := coverageExprs(string(out))
			require.NotEmpty(t, want)
			assert.Equal(t, want, coverageExprs(res.stdout))
		})
	}
}

// TestCoverageExpressionLines checks the form of every expression line:
// two spaces, one "|" per level of nesting, a location whose end is not
// before its beginning, and COUNT or COUNT:COST.
func TestCoverageExpressionLines(t *testing.T) {
	res := tlcIn(t, tlcData, "tlc", "check", "-workers", "1", "-coverage", "1", "-config", "CommitAll.cfg", "Commit")
	require.Equal(t, 0, res.code, res.stdout+res.stderr)
	line := regexp.MustCompile(`^  (\|*)line (\d+), col (\d+) to line (\d+), col (\d+) of module Commit: \d+(:\d+)?$`)
	n := 0
	for _, l := range coverageExprs(res.stdout) {
		if strings.HasPrefix(l, "<") {
			continue
		}
		m := line.FindStringSubmatch(l)
		require.NotNil(t, m, l)
		b, e := atoi(t, m[2])*1000+atoi(t, m[3]), atoi(t, m[4])*1000+atoi(t, m[5])
		assert.LessOrEqual(t, b, e, l)
		n++
	}
	assert.Greater(t, n, 10, "expression lines under the actions")
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	require.NoError(t, err)
	return n
}
