package syntax

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLibraryComesAfterTheSpecDirectory checks that a library module is
// used when no search directory has a module of its name, and that a
// module of that name beside the spec comes first, as in TLC (the
// Examples' echo/Relation.tla is not the community Relation).
func TestLibraryComesAfterTheSpecDirectory(t *testing.T) {
	RegisterLibrary("LibTestMod", []byte("---- MODULE LibTestMod ----\nFromLibrary == TRUE\n====\n"))

	dir := t.TempDir()
	spec := filepath.Join(dir, "Spec.tla")
	require.NoError(t, os.WriteFile(spec, []byte("---- MODULE Spec ----\nEXTENDS LibTestMod\n====\n"), 0o644))
	ld := NewLoader()
	_, err := ld.LoadFile(spec)
	require.NoError(t, err)
	m, err := ld.Load("LibTestMod")
	require.NoError(t, err)
	assert.Equal(t, LibraryFile("LibTestMod"), m.Pos.File)

	local := filepath.Join(dir, "LibTestMod.tla")
	require.NoError(t, os.WriteFile(local, []byte("---- MODULE LibTestMod ----\nFromDisk == TRUE\n====\n"), 0o644))
	ld = NewLoader()
	_, err = ld.LoadFile(spec)
	require.NoError(t, err)
	m, err = ld.Load("LibTestMod")
	require.NoError(t, err)
	assert.Equal(t, local, m.Pos.File)
}
