package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/require"
)

// The tests run the commands as a program does: this test binary, started
// again with asProgram in its environment, is `modelfuzz` with tlc
// mounted, so that a test runs it in a directory, reads its exit code and
// its one-line errors, and can kill it as a user would.
const asProgram = "MODELFUZZ_TLC_CLI_AS_PROGRAM"

func TestMain(m *testing.M) {
	if os.Getenv(asProgram) != "" {
		os.Exit(program(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// program runs a command line under a root command named modelfuzz, and
// ends as modelfuzz's main does: the first line of an error on stderr,
// the exit code of an *ExitError (1 for another error).
func program(args []string) int {
	root := &cobra.Command{Use: "modelfuzz", SilenceUsage: true, SilenceErrors: true}
	root.AddCommand(NewCommand())
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return 0
	}
	code := 1
	var ee *ExitError
	if errors.As(err, &ee) {
		code = ee.Code
	}
	msg, _, _ := strings.Cut(err.Error(), "\n")
	if msg != "" {
		fmt.Fprintln(os.Stderr, "modelfuzz: "+msg)
	}
	return code
}

type result struct {
	stdout, stderr string
	code           int
}

// command is the program with args, run in dir ("": here).
func command(t *testing.T, dir string, args ...string) *exec.Cmd {
	t.Helper()
	self, err := os.Executable()
	require.NoError(t, err)
	if len(args) >= 2 && args[0] == "tlc" && args[1] == "check" && !slices.Contains(args, "-noGenerateSpecTE") && !slices.Contains(args, "-teSpecOutDir") {
		// The trace-explorer specs of error traces go to a temporary
		// directory, not into testdata.
		args = append([]string{"tlc", "check", "-teSpecOutDir", t.TempDir()}, args[2:]...)
	}
	cmd := exec.Command(self, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), asProgram+"=1")
	return cmd
}

// run runs cmd to its end.
func run(t *testing.T, cmd *exec.Cmd) result {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return result{out.String(), errb.String(), code}
}

// tlcIn runs the program in dir.
func tlcIn(t *testing.T, dir string, args ...string) result {
	t.Helper()
	return run(t, command(t, dir, args...))
}

// modelfuzz runs the program here.
func modelfuzz(t *testing.T, args ...string) result {
	t.Helper()
	return tlcIn(t, "", args...)
}

// oneLineError checks that a command failed with one line on stderr that
// names the program and says want.
func oneLineError(t *testing.T, res result, want string) {
	t.Helper()
	require.NotEqual(t, 0, res.code)
	msg := strings.TrimSpace(res.stderr)
	require.NotContains(t, msg, "\n", "one line: %q", msg)
	require.True(t, strings.HasPrefix(msg, "modelfuzz: "), msg)
	require.Contains(t, msg, want)
}

// Every command checks its arguments itself and says what it wants in a
// user's words.
func TestCommandsSayWhatTheyWant(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"tlc", "check"}, "tlc check: needs the spec to check: SPEC.tla or a module name"},
		{[]string{"tlc", "simulate", "--model", "microbench.tla"}, "tlc simulate needs ACTIONS.json (usage: modelfuzz tlc simulate --model MODEL ACTIONS.json)"},
		{[]string{"tlc", "validate"}, "tlc validate needs TRACE.ndjson..."},
		{[]string{"tlc", "serve", "extra"}, `tlc serve takes no arguments, got "extra"`},
	} {
		res := modelfuzz(t, c.args...)
		oneLineError(t, res, c.want)
		require.NotContains(t, res.stderr, "arg(s)")
	}
}

// realTLC is the real TLC beside the repository (../shared/tools/tlc), for
// the tests that keep their recorded expectations true; the test is
// skipped without it, without java, and with -short (a JVM per case).
func realTLC(t *testing.T) string {
	t.Helper()
	jar, err := filepath.Abs("../../../shared/tools/tlc/tla2tools.jar")
	require.NoError(t, err)
	if _, err := os.Stat(jar); err != nil {
		t.Skipf("the real TLC is not here (%v)", err)
	}
	if _, err := exec.LookPath("java"); err != nil {
		t.Skip("java is not installed")
	}
	if testing.Short() {
		t.Skip("starts a JVM per case")
	}
	return jar
}
