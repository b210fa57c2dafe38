package process

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Output is what one replica printed during an execution, over all its
// incarnations (restarts are marked with a "--- modelfuzz: restart ---"
// line), each stream cut to its last Options.OutputLimit bytes.
type Output struct {
	Process int    `json:"process"`
	Stdout  string `json:"stdout"`
	Stderr  string `json:"stderr"`
}

// formatOutputs renders the outputs for a failure's detail.
func formatOutputs(outs []Output) string {
	var b strings.Builder
	for _, o := range outs {
		for _, s := range []struct{ name, text string }{{"stdout", o.Stdout}, {"stderr", o.Stderr}} {
			fmt.Fprintf(&b, "== n%d %s ==\n", o.Process+1, s.name)
			b.WriteString(s.text)
			if s.text != "" && !strings.HasSuffix(s.text, "\n") {
				b.WriteByte('\n')
			}
		}
	}
	return b.String()
}

// environ is the replica's environment: the fuzzer's, the cluster file's
// additions, and the two variables of the interception API.
func environ(extra []string, url string, id int) []string {
	env := append(os.Environ(), extra...)
	return append(env, "MODELFUZZ_URL="+url, "MODELFUZZ_ID="+strconv.Itoa(id))
}
