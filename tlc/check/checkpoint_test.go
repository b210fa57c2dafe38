package check

import (
	"bytes"
	"crypto/sha256"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/tlc/eval"
)

// crashed is what a test's Checkpointing.Done panics with: the search
// stops there as a process killed right after its checkpoint would.
type crashed struct{}

// interrupted runs the golden spec name with a checkpoint every levels
// levels, stopping the run at its first checkpoint (a killed process).
// It reports whether a checkpoint was written.
func interrupted(t *testing.T, name, dir string, opt Options, levels int) (written bool) {
	t.Helper()
	m, err := eval.Load(filepath.Join("testdata", name+".tla"), "")
	require.NoError(t, err)
	m.Out = &strings.Builder{}
	opt.Checkpoint = Checkpointing{Dir: dir, Levels: levels, Identity: name,
		Done: func(string, Progress) { panic(crashed{}) }}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(crashed); !ok {
				panic(r)
			}
			written = true
		}
	}()
	CheckWithProperties(m, opt)
	return false
}

// TestCheckpointRecover checks every golden spec that gets past its
// second level: a search stopped at a checkpoint and recovered from it,
// in memory or with its queue on disk, compressed or not, finds what the
// search never interrupted finds: the verdict, the distinct and
// generated counts, the depth, the error trace (rebuilt from the trace
// log the checkpoint kept) and liveness' lasso.
func TestCheckpointRecover(t *testing.T) {
	tried := 0
	for _, name := range specNames(t) {
		t.Run(name, func(t *testing.T) {
			if _, err := eval.Load(filepath.Join("testdata", name+".tla"), ""); err != nil {
				return
			}
			want := withoutPrints(runSpec(t, name, 1))
			for _, v := range []struct {
				levels int
				opt    Options
				gzip   bool
			}{
				{2, Options{Workers: 1}, false},
				{3, Options{Workers: 2, MemStates: -1, QueueDir: t.TempDir()}, true},
			} {
				dir := t.TempDir()
				opt := v.opt
				opt.Checkpoint.Gzip = v.gzip
				if !interrupted(t, name, dir, opt, v.levels) {
					return // the search ended first
				}
				tried++
				got := withoutPrints(runSpecWith(t, name, Options{Workers: 1, Recover: dir,
					Checkpoint: Checkpointing{Identity: name}}))
				assert.Equal(t, want, got, "recovered at level %d", v.levels+1)
			}
		})
	}
	assert.Greater(t, tried, 20, "specs recovered")
}

// TestCheckpointAgain checks that a recovered search writes checkpoints
// of its own that can be recovered in turn, and that a checkpoint stays
// whole beside the temporary file of one that was not finished.
func TestCheckpointAgain(t *testing.T) {
	const name = "CkptRing"
	want := withoutPrints(runSpec(t, name, 1))
	dir := t.TempDir()
	require.True(t, interrupted(t, name, dir, Options{Workers: 1}, 3))
	again := t.TempDir()
	require.True(t, interrupted(t, name, again, Options{Workers: 1, Recover: dir}, 3), "a second checkpoint, 3 levels after the first")
	require.NoError(t, os.WriteFile(filepath.Join(again, CheckpointFile+".tmp-123"), []byte("half"), 0o644))
	got := withoutPrints(runSpecWith(t, name, Options{Workers: 1, Recover: again, Checkpoint: Checkpointing{Identity: name}}))
	assert.Equal(t, want, got)
}

// recoverError recovers from dir and returns the result's error.
func recoverError(t *testing.T, name, path, identity string) *Result {
	t.Helper()
	m, err := eval.Load(filepath.Join("testdata", name+".tla"), "")
	require.NoError(t, err)
	return CheckWithProperties(m, Options{Workers: 1, Recover: path, Checkpoint: Checkpointing{Identity: identity}})
}

// TestCheckpointDamaged checks that a checkpoint that cannot be used
// gives one line naming the problem and TLC's exit code for a system
// error, whatever the damage.
func TestCheckpointDamaged(t *testing.T) {
	const name = "CkptRing"
	dir := t.TempDir()
	require.True(t, interrupted(t, name, dir, Options{Workers: 1}, 2))
	file := filepath.Join(dir, CheckpointFile)
	good, err := os.ReadFile(file)
	require.NoError(t, err)

	check := func(t *testing.T, path, identity, want string) {
		t.Helper()
		r := recoverError(t, name, path, identity)
		assert.Equal(t, "error", r.Result)
		assert.Equal(t, ExitSystem, r.ExitCode)
		assert.NotContains(t, r.Error, "\n")
		assert.Contains(t, r.Error, want)
		assert.True(t, strings.HasPrefix(r.Error, "-recover "+path+": "), r.Error)
	}
	for i := range []int{0, 1, 2} {
		bad := append([]byte(nil), good...)
		bad[len(bad)*(2*i+1)/6] ^= 0x40
		require.NoError(t, os.WriteFile(file, bad, 0o644))
		check(t, dir, name, "the checkpoint is damaged (its checksum does not match its content)")
	}
	require.NoError(t, os.WriteFile(file, good[:len(good)/2], 0o644))
	check(t, dir, name, "the checkpoint is damaged (its checksum does not match its content)")
	require.NoError(t, os.WriteFile(file, good[:10], 0o644))
	check(t, dir, name, "the checkpoint is damaged (it ends too early)")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	check(t, file, name, "the checkpoint is damaged (it ends too early)")

	// A checkpoint of another format version, whole and well summed.
	old := bytes.Replace(good[:len(good)-sha256.Size], []byte(checkpointMagic), []byte("modelfuzz checkpoint 1\n"), 1)
	sum := sha256.Sum256(old)
	require.NoError(t, os.WriteFile(file, append(old, sum[:]...), 0o644))
	check(t, dir, name, `a checkpoint of format "1", written by another version of modelfuzz; this one reads "2": check again without -recover`)

	require.NoError(t, os.WriteFile(file, good, 0o644))
	check(t, dir, "another spec", "the checkpoint is of another model")
	require.Equal(t, "success", recoverError(t, name, dir, name).Result, "the checkpoint itself is good")

	empty := t.TempDir()
	check(t, empty, name, "no checkpoint in this directory")
	check(t, filepath.Join(empty, "nothere"), name, "no such file or directory")
}
