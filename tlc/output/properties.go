package output

import (
	"fmt"

	"github.com/modelfuzz/modelfuzz/tlc/check"
)

// propertyViolation prints a violated temporal property with its lasso
// ("Back to state N: <action>" or "State N: Stuttering"), or a property
// violated by an initial state, as TLC prints them.
func (p *Printer) propertyViolation(res *check.Result) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.errorMsg(violationCode(res), res.Error)
	if len(res.Trace) == 0 {
		return
	}
	if res.Result == "property-initial" {
		st := p.traceStates(res.Trace[len(res.Trace)-1:])[0]
		for j, n := range st.names {
			fmt.Fprintf(p.w, "%s = %s\n", n, st.vals[j])
		}
		fmt.Fprintln(p.w)
		return
	}
	if p.tool {
		p.msg(ecCounterExample, classError, "The following behavior constitutes a counter-example:")
	} else {
		fmt.Fprint(p.w, "\nError: The following behavior constitutes a counter-example:\n\n")
	}
	p.states(res.Trace)
	last := res.Trace[len(res.Trace)-1].Values
	switch {
	case res.Stuttering:
		p.msg(ecStuttering, classState, "%s", p.stateLabel(len(res.Trace)+1, "Stuttering"))
	case res.LoopBack > 0:
		p.msg(ecBackToState, classState, "Back to state %d: %s\n", res.LoopBack, p.stepLabel(last, res.Trace[res.LoopBack-1].Values))
	}
}
