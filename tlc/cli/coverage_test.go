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
