package cli

import (
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tlcCoverageVars is what the real TLC (tla2tools.jar at cc6b616) prints
// for the variables in -coverage's report of testdata/Commit.tla with
// CommitAll.cfg and -workers 1, in its order.
var tlcCoverageVars = []string{
	"<msgs line 6, col 29 to line 6, col 32 of module Commit>: 4",
	"<rmState line 6, col 11 to line 6, col 17 of module Commit>: 8",
	"<tmState line 6, col 20 to line 6, col 26 of module Commit>: 2",
}

// coverageVars keeps the report's variable lines ("<name LOCATION>: N";
// an action's line ends with D:G, an invariant's has no count), sorted:
// TLC's order follows its symbol table's hashing, ours the declarations.
func coverageVars(out string) []string {
	re := regexp.MustCompile(`^<\w+ line [^>]*>: \d+$`)
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		if re.MatchString(l) {
			keep = append(keep, l)
		}
	}
	slices.Sort(keep)
	return keep
}

// TestCoverageVariables checks the variables' lines of -coverage against
// TLC's: the location of each declaration and the number of distinct
// values it takes.
func TestCoverageVariables(t *testing.T) {
	res := tlcIn(t, tlcData, "tlc", "check", "-workers", "2", "-coverage", "1", "-config", "CommitAll.cfg", "Commit")
	require.Equal(t, 0, res.code, res.stdout+res.stderr)
	assert.Equal(t, tlcCoverageVars, coverageVars(res.stdout))
}

// TestCoverageVariablesAgainstTLC runs the real TLC, when it is beside
// the repository, to keep tlcCoverageVars true.
func TestCoverageVariablesAgainstTLC(t *testing.T) {
	jar := realTLC(t)
	cmd := exec.Command("java", "-XX:+UseParallelGC", "-cp", jar, "tlc2.TLC", "-workers", "1", "-metadir", t.TempDir(),
		"-noGenerateSpecTE", "-coverage", "1", "-config", "CommitAll.cfg", "Commit.tla")
	cmd.Dir = tlcData
	out, _ := cmd.CombinedOutput()
	require.Equal(t, 0, cmd.ProcessState.ExitCode(), string(out))
	assert.Equal(t, tlcCoverageVars, coverageVars(string(out)))
}

// tlcToolCoverage is the sequence of codes the real TLC (tla2tools.jar at
// cc6b616) printed for -tool -coverage 1 -workers 1 on testdata/Commit.tla
// with Commit.cfg (an invariant violated): the report after the trace,
// 2201 and 2202 around it, 2779 a variable, 2773 the Init, 2772 an
// action, 2774 an invariant; 2775 and 2221 are the sub-expressions' lines.
const tlcToolCoverage = "2262:0 2187:0 2220:0 2219:0 2185:0 2189:0 2190:0 2110:1 2121:1 2217:4 2217:4 2217:4 2217:4 " +
	"2201:0 2779:0 2779:0 2779:0 2773:0 2775:0 2221:0 2221:0 2772:0 2221:0 2221:0 2221:0 2221:0 2221:0 2221:0 2775:0 2221:0 2221:0 " +
	"2772:0 2221:0 2221:0 2221:0 2221:0 2221:0 2221:0 2221:0 2221:0 2772:0 2221:0 2221:0 2221:0 2221:0 2772:0 2221:0 2221:0 2221:0 " +
	"2221:0 2221:0 2221:0 2774:0 2221:0 2202:0 2200:0 2199:0 2194:0 2186:0"

// withoutSubExpressions drops the sub-expressions' lines (2775, 2221)
// from a sequence of codes: after a violation, what was evaluated before
// the search stopped depends on the order of the search (TLC's counts
// here are of a search that went on further than ours).
func withoutSubExpressions(seq string) string {
	var out []string
	for _, c := range strings.Fields(seq) {
		if c != "2775:0" && c != "2221:0" {
			out = append(out, c)
		}
	}
	return strings.Join(out, " ")
}

// TestToolModeCoverage checks that -tool carries -coverage's report, each
// line a message with TLC's code, where TLC prints it: after the verdict
// and its trace, before the counts.
func TestToolModeCoverage(t *testing.T) {
	res := tlcIn(t, tlcData, "tlc", "check", "-tool", "-workers", "1", "-noGenerateSpecTE", "-coverage", "1", "-config", "Commit.cfg", "Commit")
	require.Equal(t, 12, res.code, res.stdout+res.stderr)
	msgs, err := parseToolOutput(res.stdout, true)
	require.NoError(t, err, res.stdout)
	assert.Equal(t, withoutSubExpressions(tlcToolCoverage), withoutSubExpressions(codes(msgs)))
	values := 0
	var vars []string
	for _, m := range msgs {
		switch m.code {
		case 2779:
			vars = append(vars, m.text)
		case 2774:
			assert.Equal(t, "<NotDone line 40, col 1 to line 40, col 7 of module Commit>", m.text)
		case 2773:
			assert.Equal(t, "<Init line 10, col 1 to line 10, col 4 of module Commit>: 1:1", m.text)
		case 2221, 2775:
			// TLC's MP formats: "  %1%: %2%" and "  %1%: %2%:%3%".
			assert.Regexp(t, `^  \|*line \d+, col \d+ to line \d+, col \d+ of module Commit: \d+`+map[int]string{2221: "", 2775: `:\d+`}[m.code]+`$`, m.text)
			values++
		}
	}
	assert.Greater(t, values, 5, "the expressions' lines")
	assert.Len(t, vars, 3, "a line per variable")
}

// TestToolModeCoverageAgainstTLC keeps tlcToolCoverage true, when the
// real TLC is beside the repository.
func TestToolModeCoverageAgainstTLC(t *testing.T) {
	jar := realTLC(t)
	cmd := exec.Command("java", "-XX:+UseParallelGC", "-cp", jar, "tlc2.TLC", "-tool", "-workers", "1", "-metadir", t.TempDir(),
		"-noGenerateSpecTE", "-coverage", "1", "-config", "Commit.cfg", "Commit.tla")
	cmd.Dir = tlcData
	out, _ := cmd.CombinedOutput()
	require.Equal(t, 12, cmd.ProcessState.ExitCode(), string(out))
	msgs, err := parseToolOutput(string(out), false)
	require.NoError(t, err)
	assert.Equal(t, tlcToolCoverage, codes(msgs))
}
