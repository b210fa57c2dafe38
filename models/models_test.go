package models

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/tlc/check"
)

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

func TestConstOverridesAndErrors(t *testing.T) {
	m, err := Load(Spec{Model: "microbench", Config: "microbench_check.cfg", Consts: []string{"Workers=1", "Tasks = 2"}})
	require.NoError(t, err)
	res := check.Check(m, check.Options{Workers: 1})
	require.Equal(t, "success", res.Result)
	_, err = Load(Spec{Model: "microbench.tla", Consts: []string{"Workers"}})
	require.ErrorContains(t, err, `--const "Workers": want NAME=VALUE`)
	_, err = Load(Spec{Model: "nosuch.tla"})
	require.ErrorContains(t, err, "no such file, and not an embedded model")
	_, err = Load(Spec{})
	require.ErrorContains(t, err, "no model given")
}
