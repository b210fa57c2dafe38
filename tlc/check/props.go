package check

import (
	"fmt"
	"strings"
)

// ExitNotChecked is the exit code of a check that found no error but did
// not check every property of the configuration. TLC has no such outcome
// (it refuses a property it cannot check before it starts); a script must
// not read it as success, so it is TLC's code for a system error.
const ExitNotChecked = ExitSystem

// Unchecked is a property of the configuration that the check did not
// check, and why.
type Unchecked struct {
	Name, Why string
}

// NotChecked turns a successful result into the outcome "not-checked"
// when some properties were not checked: the run must never say that no
// error was found about a property it did not look at. A violation found
// by the search stands as it is.
func (r *Result) NotChecked(props []Unchecked) {
	if len(props) == 0 || r.Result != "success" {
		return
	}
	r.Result, r.ExitCode = "not-checked", ExitNotChecked
	r.Unchecked = props
	parts := make([]string, len(props))
	for i, p := range props {
		parts[i] = p.Name + " (" + p.Why + ")"
	}
	noun := "properties"
	if len(props) == 1 {
		noun = "property"
	}
	r.Error = fmt.Sprintf("%d %s NOT checked: %s", len(props), noun, strings.Join(parts, ", "))
}
