package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The values testdata/Terse.tla prints (PrintT, Print) and the state of
// its error trace, as the real TLC (tla2tools.jar at cc6b616) prints them
// with -workers 1, without and with -terse: terse-default.golden and
// terse.golden.
var terseCases = []struct{ flag, golden string }{
	{"", "terse-default.golden"},
	{"-terse", "terse.golden"},
}

// printedValues keeps the lines of a run's output that print a value:
// Print and PrintT output and the trace's variables.
func printedValues(out string) string {
	re := regexp.MustCompile(`^(<<"|/\\ |\{|\[)`)
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		if re.MatchString(l) {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n") + "\n"
}

func terseArgs(flag string) []string {
	args := []string{"-workers", "1", "-noGenerateSpecTE", "-config", "Terse.cfg"}
	if flag != "" {
		args = append(args, flag)
	}
	return args
}

// TestTerse checks that values print as TLC prints them: lazy sets
// enumerated by TLC's rules by default, as written with -terse.
func TestTerse(t *testing.T) {
	for _, c := range terseCases {
		t.Run(c.golden, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join(tlcData, c.golden))
			require.NoError(t, err)
			res := tlcIn(t, tlcData, append(append([]string{"tlc", "check"}, terseArgs(c.flag)...), "Terse")...)
			require.Equal(t, 12, res.code, res.stdout+res.stderr)
			assert.Equal(t, string(want), printedValues(res.stdout))
		})
	}
}

// TestTerseAgainstTLC runs the real TLC, when it is beside the
// repository, to keep the recorded output true.
func TestTerseAgainstTLC(t *testing.T) {
	jar := realTLC(t)
	for _, c := range terseCases {
		t.Run(c.golden, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join(tlcData, c.golden))
			require.NoError(t, err)
			args := append([]string{"-XX:+UseParallelGC", "-cp", jar, "tlc2.TLC", "-metadir", t.TempDir()}, terseArgs(c.flag)...)
			cmd := exec.Command("java", append(args, "Terse.tla")...)
			cmd.Dir = tlcData
			out, _ := cmd.CombinedOutput()
			require.Equal(t, 12, cmd.ProcessState.ExitCode(), string(out))
			assert.Equal(t, string(want), printedValues(string(out)))
		})
	}
}
