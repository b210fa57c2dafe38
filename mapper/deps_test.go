package mapper_test

import (
	"go/build"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The mappers know the systems they map only through the trace and their
// parameters: of this module, the package imports schedule alone
// (ARCHITECTURE.md, "Packages"), never an adapter.
func TestImportsOnlySchedule(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	require.NoError(t, err)
	const module = "github.com/modelfuzz/modelfuzz/"
	for _, imp := range pkg.Imports {
		if strings.HasPrefix(imp, module) {
			require.Equal(t, module+"schedule", imp, "package mapper imports %s", imp)
		}
	}
}
