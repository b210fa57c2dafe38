package etcdraft

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// The patches that break the progress oracles' invariants
// (bugs/etcdraft/oracles) start with their description, have their
// paragraph in that folder's README and a reproducer, and apply to the
// go.etcd.io/raft/v3 this module builds with; each reproducer passes on
// the unpatched library (scripts/library-bugs.sh shows it fails with its
// patch).
func TestOracleBugPatches(t *testing.T) {
	dir := filepath.Join("..", "..", "bugs", "etcdraft", "oracles")
	patches, err := filepath.Glob(filepath.Join(dir, "*.patch"))
	require.NoError(t, err)
	require.Len(t, patches, 4, "one patch per progress invariant")
	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	require.NoError(t, err)
	_, sys := newSystem(t, DefaultConfig())
	for _, p := range patches {
		name := strings.TrimSuffix(filepath.Base(p), ".patch")
		t.Run(name, func(t *testing.T) {
			f, err := os.Open(p)
			require.NoError(t, err)
			defer f.Close()
			first, _ := bufio.NewReader(f).ReadString('\n')
			require.True(t, strings.HasPrefix(first, "# "+name+": "), "%s: the first line should be \"# %s: <what it is>\", got %q", p, name, first)
			require.Contains(t, string(readme), "**"+name+"**")
			raw, err := os.ReadFile(filepath.Join(dir, name+".json"))
			require.NoError(t, err, "the reproducer")
			in, err := schedule.DecodeInput(raw)
			require.NoError(t, err)
			ex, _ := run(t, sys, in)
			require.Empty(t, ex.Failures, "the reproducer passes on the unpatched library")
			if _, err := exec.LookPath("patch"); err != nil {
				t.Skip("patch(1) is not installed (Debian package patch); .ci/run installs it")
			}
			out, err := exec.Command("patch", "--dry-run", "--batch", "--forward", "--fuzz=0", "-p1", "-d", raftModuleDir(t), "-i", mustAbs(t, p)).CombinedOutput()
			require.NoError(t, err, "%s does not apply:\n%s", p, out)
		})
	}
}
