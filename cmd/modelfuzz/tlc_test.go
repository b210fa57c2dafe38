package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// The TLA+ engine's command line (tlc/cli) is mounted as `modelfuzz tlc`,
// and the program ends with its exit codes: TLC's, and 1 for a command
// line it refuses, with one line on stderr.
func TestTLCIsMounted(t *testing.T) {
	res := modelfuzz(t, "tlc", "check")
	oneLineError(t, res, "tlc check: needs the spec to check: SPEC.tla or a module name")
	require.Equal(t, 1, res.code)

	acts := filepath.Join(t.TempDir(), "acts.json")
	require.NoError(t, os.WriteFile(acts, []byte(`[{"name":"Start","params":{"p":1}},{"name":"Execute","params":{"w":2,"r":1,"k":1}}]`), 0o644))
	res = modelfuzz(t, "tlc", "simulate", "--model", "microbench.tla", acts)
	require.Equal(t, 12, res.code, "a divergence exits as an invariant violated: %s", res.stderr)
	require.Empty(t, res.stderr)
	require.Contains(t, res.stdout, "Divergence at action 1 (Execute(")
}
