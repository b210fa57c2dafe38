//go:build !race

package models

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/tlc/check"
)

// This check explores the embedded models exhaustively (the Raft model's
// bounded cfg has about 675,000 states): it runs without the race
// detector, in make test's second pass.

// Every embedded model passes `modelfuzz tlc check` with its cfgs for
// exhaustive checking (NAME_check.cfg, and NAME_check_*.cfg for parts
// checked on their own, such as raft.tla's reconfiguration).
func TestEmbeddedModelsCheck(t *testing.T) {
	names := Embedded()
	require.Contains(t, names, "microbench.tla")
	ents, err := files.ReadDir(".")
	require.NoError(t, err)
	for _, name := range names {
		base := strings.TrimSuffix(name, ".tla")
		var cfgs []string
		for _, e := range ents {
			if c := e.Name(); c == base+"_check.cfg" || strings.HasPrefix(c, base+"_check_") && strings.HasSuffix(c, ".cfg") {
				cfgs = append(cfgs, c)
			}
		}
		require.Contains(t, cfgs, base+"_check.cfg")
		for _, c := range cfgs {
			m, err := Load(Spec{Model: name, Config: c})
			require.NoError(t, err, c)
			res := check.Check(m, check.Options{Workers: 2})
			require.Equal(t, "success", res.Result, "%s: %s", c, res.Error)
			require.Greater(t, res.Distinct, int64(10), c)
		}
	}
}
