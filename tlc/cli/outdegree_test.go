package cli

import (
	"os/exec"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// outDegreeCases are specs and the out-degree line the real TLC
// (tla2tools.jar at cc6b616) prints for them with -workers 1.
var outDegreeCases = []struct{ spec, cfg, tlc string }{
	{"Commit", "CommitAll.cfg", "The average outdegree of the complete state graph is 1 (minimum is 0, the maximum 4 and the 95th percentile is 4)."},
	{"OutDegree", "OutDegree.cfg", "The average outdegree of the complete state graph is 1 (minimum is 0, the maximum 7 and the 95th percentile is 3)."},
}

var outDegreeLine = regexp.MustCompile(`(?m)^The average outdegree of the complete state graph is .*$`)

// TestOutDegree checks the state graph's out-degree summary that ends a
// successful check, with one worker and with two, against TLC's.
func TestOutDegree(t *testing.T) {
	for _, c := range outDegreeCases {
		for _, w := range []string{"1", "2"} {
			t.Run(c.spec+"/"+w, func(t *testing.T) {
				res := tlcIn(t, tlcData, "tlc", "check", "-workers", w, "-noGenerateSpecTE", "-config", c.cfg, c.spec)
				require.Equal(t, 0, res.code, res.stdout+res.stderr)
				assert.Equal(t, c.tlc, outDegreeLine.FindString(res.stdout))
			})
		}
	}
	// None after a violation, as TLC.
	res := tlcIn(t, tlcData, "tlc", "check", "-workers", "1", "-noGenerateSpecTE", "Commit")
	require.Equal(t, 12, res.code, res.stdout+res.stderr)
	assert.Empty(t, outDegreeLine.FindString(res.stdout))
}

// TestOutDegreeAgainstTLC runs the real TLC, when it is beside the
// repository, to keep outDegreeCases true.
func TestOutDegreeAgainstTLC(t *testing.T) {
	jar := realTLC(t)
	for _, c := range outDegreeCases {
		t.Run(c.spec, func(t *testing.T) {
			cmd := exec.Command("java", "-XX:+UseParallelGC", "-cp", jar, "tlc2.TLC", "-workers", "1", "-metadir", t.TempDir(),
				"-noGenerateSpecTE", "-config", c.cfg, c.spec+".tla")
			cmd.Dir = tlcData
			out, _ := cmd.CombinedOutput()
			require.Equal(t, 0, cmd.ProcessState.ExitCode(), string(out))
			assert.Equal(t, c.tlc, outDegreeLine.FindString(string(out)))
		})
	}
}
