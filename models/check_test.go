//go:build !race

package models

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/tlc/check"
)

// This check explores the embedded models exhaustively (the Raft model's
// bounded cfg has about 516,000 states): it runs without the race
// detector, in make test's second pass.

// Every embedded model passes `modelfuzz tlc check` with its own cfg.
func TestEmbeddedModelsCheck(t *testing.T) {
	names := Embedded()
	require.Contains(t, names, "microbench.tla")
	for _, name := range names {
		// A model's _check.cfg is its configuration for exhaustive checking.
		m, err := Load(Spec{Model: name, Config: strings.TrimSuffix(name, ".tla") + "_check.cfg"})
		require.NoError(t, err, name)
		res := check.Check(m, check.Options{Workers: 2})
		require.Equal(t, "success", res.Result, "%s: %s", name, res.Error)
		require.Greater(t, res.Distinct, int64(10), name)
	}
}
