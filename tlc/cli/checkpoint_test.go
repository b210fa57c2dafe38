package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ckptSpec copies the checker's checkpoint spec (343 states, 13 levels, a
// liveness property under fairness) into a new directory, with a second
// configuration whose invariant fails at depth 6.
func ckptSpec(t *testing.T) string {
	dir := t.TempDir()
	for _, f := range []string{"CkptRing.tla", "CkptRing.cfg"} {
		b, err := os.ReadFile(filepath.Join("..", "check", "testdata", f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), b, 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "Bad.cfg"), []byte(
		"CONSTANTS Procs = {p1, p2, p3}\n N = 3\nSPECIFICATION Spec\nINVARIANT Small\n"), 0o644))
	b, err := os.ReadFile(filepath.Join(dir, "CkptRing.tla"))
	require.NoError(t, err)
	src := strings.Replace(string(b), "====", "Small == \\A p, q \\in Procs : p # q => count[p] + count[q] < 5\n====", 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "CkptRing.tla"), []byte(src), 0o644))
	return dir
}

// verdict is the end of a check's output, from its verdict on, without
// the time it finished.
func verdict(out string) string {
	i := strings.Index(out, "Error:")
	if j := strings.Index(out, "Model checking completed."); i < 0 || j >= 0 && j < i {
		i = j
	}
	if i < 0 {
		return out
	}
	var keep []string
	for _, l := range strings.SplitAfter(out[i:], "\n") {
		if !strings.HasPrefix(l, "Finished in ") && !strings.HasPrefix(l, "Progress(") && !strings.HasPrefix(l, "Trace exploration spec path: ") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "")
}

// TestTLCCheckpointKillRecover kills a check with SIGKILL right after its
// checkpoint and recovers it: the recovered run prints the verdict, the
// counts, the depth and the error trace of a run never interrupted, and
// exits with its code; with -checkpoint the recovered run writes its own
// checkpoints into the same directory.
func TestTLCCheckpointKillRecover(t *testing.T) {
	dir := ckptSpec(t)
	for _, c := range []struct {
		name string
		args []string
		code int
	}{
		{"success", []string{"CkptRing"}, 0},
		{"invariant", []string{"-config", "Bad.cfg", "CkptRing"}, 12},
		{"gzip, 2 workers", []string{"-gzip", "-workers", "2", "CkptRing"}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			whole := tlcIn(t, dir, append([]string{"tlc", "check", "-workers", "1"}, c.args...)...)
			require.Equal(t, c.code, whole.code, whole.stdout+whole.stderr)
			meta := t.TempDir()
			killed := tlcIn(t, dir, append([]string{"tlc", "check", "-workers", "1", "-metadir", meta, "--checkpoint-levels", "4", "--kill-after-checkpoint"}, c.args...)...)
			assert.Equal(t, -1, killed.code, "killed by a signal: %s", killed.stdout)
			assert.Contains(t, killed.stdout, "Checkpointing of run "+meta+"\nCheckpointing completed at (")
			assert.NotContains(t, killed.stdout, "No error")

			rec := tlcIn(t, dir, append([]string{"tlc", "check", "-recover", meta, "-checkpoint", "30"}, c.args...)...)
			assert.Equal(t, c.code, rec.code, rec.stdout+rec.stderr)
			assert.Contains(t, rec.stdout, "Starting recovery from checkpoint "+meta+"\nRecovery completed. 65 states examined. 33 states on queue.\n")
			assert.Equal(t, verdict(whole.stdout), verdict(rec.stdout))
		})
	}
}

// TestTLCCheckpointErrors checks the one-line errors of -recover and the
// combinations refused.
func TestTLCCheckpointErrors(t *testing.T) {
	dir := ckptSpec(t)
	meta := t.TempDir()
	killed := tlcIn(t, dir, "tlc", "check", "-metadir", meta, "--checkpoint-levels", "3", "--kill-after-checkpoint", "CkptRing")
	require.Equal(t, -1, killed.code, "killed by a signal")
	file := filepath.Join(meta, "modelfuzz.chkpt")
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	b[len(b)/2] ^= 1
	require.NoError(t, os.WriteFile(file, b, 0o644))

	r := tlcIn(t, dir, "tlc", "check", "-recover", meta, "CkptRing")
	assert.Equal(t, 153, r.code)
	assert.Contains(t, r.stdout, "\nError: -recover "+meta+": the checkpoint is damaged (its checksum does not match its content)\n")

	r = tlcIn(t, dir, "tlc", "check", "-recover", filepath.Join(meta, "none"), "CkptRing")
	assert.Equal(t, 153, r.code)
	assert.Contains(t, r.stdout, "\nError: -recover "+filepath.Join(meta, "none")+": no such file or directory\n")

	b[len(b)/2] ^= 1
	require.NoError(t, os.WriteFile(file, b, 0o644))
	r = tlcIn(t, dir, "tlc", "check", "-recover", meta, "-config", "Bad.cfg", "CkptRing")
	assert.Equal(t, 153, r.code)
	assert.Contains(t, r.stdout, "the checkpoint is of another model")

	for _, args := range [][]string{
		{"-recover", meta, "-simulate"},
		{"-recover", meta, "-continue"},
		{"-recover", meta, "-coverage", "1"},
		{"-checkpoint", "-1"},
	} {
		r := tlcIn(t, dir, append(append([]string{"tlc", "check"}, args...), "CkptRing")...)
		assert.Equal(t, 1, r.code, "%v", args)
		assert.Equal(t, 1, strings.Count(r.stderr, "\n"), "%v: %s", args, r.stderr)
	}
}
