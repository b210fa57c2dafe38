package models

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/tlc/check"
)

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

// An embedded cfg is found by its bare name; a path that names no file is
// an error naming it, not the embedded cfg of the same base name.
func TestConfigPathIsNotAnEmbeddedName(t *testing.T) {
	_, err := Load(Spec{Model: "raft.tla", Config: "raft_reads.cfg"})
	require.NoError(t, err)
	_, err = Load(Spec{Model: "raft.tla", Config: "/nope/raft_reads.cfg"})
	require.ErrorContains(t, err, "/nope/raft_reads.cfg")
}
