package output

import (
	"fmt"

	"github.com/modelfuzz/modelfuzz/tlc/check"
	"github.com/modelfuzz/modelfuzz/tlc/value"
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
			fmt.Fprintf(p.w, "%s = %s\n", n, value.Format(st.vals[j], p.terse))
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
		p.stutteringWarning(res)
	case res.LoopBack > 0:
		p.msg(ecBackToState, classState, "Back to state %d: %s\n", res.LoopBack, p.stepLabel(last, res.Trace[res.LoopBack-1].Values))
	}
}

// stutteringWarning warns, as TLC, that a stuttering counterexample may
// come from a missing fairness condition: the SPECIFICATION has none, or
// there is no SPECIFICATION (only INIT and NEXT). Not with -nowarning.
func (p *Printer) stutteringWarning(res *check.Result) {
	if p.noWarning || p.m == nil {
		return
	}
	const book = "(compare Chapter 8, page 87ff of Specifying Systems at https://lamport.azurewebsites.net/tla/book.html)."
	spec := p.m.Config.Specification.Name
	switch {
	case spec == "":
		p.warning(ecNoSpecButProperty, "The stuttering counterexample above may be caused by the absence of a behavior specification "+
			"(SPECIFICATION). Only INIT and NEXT have been provided, so TLC permits infinite stuttering. "+
			"To rule out such counterexamples, use SPECIFICATION Spec, with Spec asserting a suitable fairness constraint "+book)
	case res.NoFairness:
		loc, ok := p.m.DefinitionExtent(spec)
		if !ok {
			return
		}
		p.warning(ecNoFairness, fmt.Sprintf("The stuttering counterexample above may be caused by the absence of a fairness constraint "+
			"in the behavior specification %s defined at %s. To rule out such counterexamples, conjoin a "+
			"suitable fairness constraint to %s "+book, spec, loc, spec))
	}
}

// warning prints a warning as TLC: "Warning: " before the text and, after
// the run's first warning, how to silence them (in -tool mode, the class
// says it is a warning and the text stands alone).
func (p *Printer) warning(code int, text string) {
	if p.tool {
		p.msg(code, classWarning, "%s", text)
		return
	}
	if !p.warned {
		text += "\n(Use the -nowarning option to disable this warning.)"
	}
	p.warned = true
	p.msg(code, classWarning, "Warning: %s", text)
}
