package eval

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The split of a next-state relation into TLC's actions: one per disjunct,
// per binding of a constant \E and per expanded call, named and located.
func TestNextActionsSplitAsTLC(t *testing.T) {
	m, err := Load("../cli/testdata/Commit.tla", "")
	require.NoError(t, err)
	var labels []string
	for _, a := range m.NextActions() {
		labels = append(labels, a.Label())
	}
	assert.Equal(t, strings.Join([]string{
		"<Decide line 22, col 3 to line 25, col 32 of module Commit>",
		"<Prepare(r1) line 16, col 3 to line 19, col 22 of module Commit>",
		"<Abort(r1) line 28, col 6 to line 30, col 35 of module Commit>",
		"<Abort(r1) line 31, col 6 to line 34, col 35 of module Commit>",
		"<Prepare(r2) line 16, col 3 to line 19, col 22 of module Commit>",
		"<Abort(r2) line 28, col 6 to line 30, col 35 of module Commit>",
		"<Abort(r2) line 31, col 6 to line 34, col 35 of module Commit>",
	}, "\n"), strings.Join(labels, "\n"))
}

// An instance with substitutions is one action, as in TLC: unnamed when
// it is the whole next-state relation, located at the INSTANCE statement.
func TestNextActionsOfAnInstance(t *testing.T) {
	m, err := Load("../cli/testdata/MCCommit.tla", "")
	require.NoError(t, err)
	require.Len(t, m.NextActions(), 1)
	a := m.NextActions()[0]
	assert.Equal(t, "<Action line 7, col 1 to line 7, col 15 of module MCCommit>", a.Label())
	assert.Equal(t, "UnnamedAction", a.Signature())
}
