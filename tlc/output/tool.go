package output

import (
	"fmt"
	"strings"

	"github.com/modelfuzz/modelfuzz/tlc/check"
)

// TLC's message codes (tlc2.output.EC) for what the check prints, and the
// classes of its -tool mode (tlc2.output.MP): in that mode every message is
// printed between "@!@!@STARTMSG code:class @!@!@" and "@!@!@ENDMSG code
// @!@!@" lines, which the Toolbox and the VS Code extension parse.
const (
	ecGeneral                = 1000
	ecAssumptionFalse        = 2104
	ecInvariantViolatedInit  = 2107
	ecPropertyViolatedInit   = 2108
	ecInvariantViolated      = 2110
	ecActionPropertyViolated = 2112
	ecDeadlock               = 2114
	ecTemporalViolated       = 2116
	ecBehaviorUpToHere       = 2121
	ecBackToState            = 2122
	ecStarting               = 2185
	ecFinished               = 2186
	ecModeMC                 = 2187
	ecModeSimulation         = 2188
	ecComputingInit          = 2189
	ecInitGenerated          = 2190
	ecCheckingTemporal       = 2192
	ecLiveImplied            = 2212
	ecCheckedTemporal        = 2267
	ecSuccess                = 2193
	ecSearchDepth            = 2194
	ecStats                  = 2199
	ecProgress               = 2200
	ecCoverageStart          = 2201
	ecCoverageEnd            = 2202
	ecCoverageNext           = 2772
	ecCoverageInit           = 2773
	ecCoverageProperty       = 2774
	ecCoverageVar            = 2779
	ecCoverageValue          = 2221
	ecCoverageValueCost      = 2775
	ecState                  = 2217
	ecStuttering             = 2218
	ecSanyEnd                = 2219
	ecSanyStart              = 2220
	ecVersion                = 2262
	ecNoSpecButProperty      = 2257
	ecNoFairness             = 2259
	ecOutDegree              = 2268
	ecCounterExample         = 2264
	ecParseFailed            = 3002
	ecTESpecWritten          = 2501

	classNone    = 0
	classError   = 1
	classWarning = 3
	classState   = 4
)

// msg prints one of TLC's messages: its text and a newline, or in -tool
// mode the text between TLC's markers.
func (p *Printer) msg(code, class int, format string, args ...any) {
	text := fmt.Sprintf(format, args...)
	if !p.tool {
		fmt.Fprintln(p.w, text)
		return
	}
	fmt.Fprintf(p.w, "@!@!@STARTMSG %d:%d @!@!@\n%s\n@!@!@ENDMSG %d @!@!@\n", code, class, text, code)
}

// errorMsg prints an error message: "Error: " before the text, but in
// -tool mode, where the class says it.
func (p *Printer) errorMsg(code int, text string) {
	if p.tool {
		p.msg(code, classError, "%s", text)
		return
	}
	p.msg(code, classError, "Error: %s", text)
}

// violationCode is the code of the message that reports res.
func violationCode(res *check.Result) int {
	switch res.Result {
	case "invariant":
		if len(res.Trace) == 1 {
			return ecInvariantViolatedInit
		}
		return ecInvariantViolated
	case "deadlock":
		return ecDeadlock
	case "property":
		return ecActionPropertyViolated
	case "property-initial":
		return ecPropertyViolatedInit
	case "liveness", "temporal":
		return ecTemporalViolated
	case "assumption":
		return ecAssumptionFalse
	}
	return ecGeneral
}

// stateLabel is how a trace's state N is introduced: "State N: label", or
// in -tool mode "N: label", as TLC prints each.
func (p *Printer) stateLabel(n int, label string) string {
	if p.tool {
		return fmt.Sprintf("%d: %s", n, label)
	}
	return fmt.Sprintf("State %d: %s", n, label)
}

// LoadFailed prints, in -tool mode, why the spec could not be loaded, as a
// message of TLC's (a parse or semantic error under TLC's code for it),
// and TLC's last line; the error itself goes to the standard error.
func (p *Printer) LoadFailedTool(code int, err error) {
	if !p.tool {
		return
	}
	ec := ecGeneral
	if code == check.ExitParse {
		ec = ecParseFailed
	}
	p.msg(ec, classError, "%s", strings.TrimSpace(err.Error()))
	p.finished()
}
