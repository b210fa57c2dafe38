package tlc_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The engine knows nothing of the fuzzer: no package of tlc/ imports the
// loop, its input, its measures, campaigns, the corpus or an adapter, and
// the door does not import the embedded models either (they load through
// it).
func TestEngineKnowsNothingOfTheFuzzer(t *testing.T) {
	fuzzerSide := []string{"fuzzer", "schedule", "guidance", "campaign", "corpus", "adapters", "mapper", "mutate", "record"}
	for _, tags := range []string{"", "with_tla"} {
		out, err := exec.Command("go", "list", "-tags", tags, "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, "./...").Output()
		require.NoError(t, err)
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			f := strings.Fields(line)
			pkg, deps := f[0], f[1:]
			forbidden := fuzzerSide
			if pkg == "github.com/modelfuzz/modelfuzz/tlc" {
				forbidden = append(forbidden, "models")
			}
			for _, d := range deps {
				for _, name := range forbidden {
					p := "github.com/modelfuzz/modelfuzz/" + name
					require.False(t, d == p || strings.HasPrefix(d, p+"/"), "%s imports %s", pkg, d)
				}
			}
		}
	}
}
