package check

import (
	"errors"

	"github.com/modelfuzz/modelfuzz/tlc/stdlib"
)

// TLC's other exit codes (tlc2.output.EC.ExitStatus).
const (
	ExitAssert             = 14  // Assert's first argument is FALSE
	ExitSafetyEval         = 76  // an invariant cannot be evaluated
	ExitLivenessEval       = 77  // a temporal property cannot be evaluated
	ExitStateSpaceTooLarge = 152 // TLC's state space too large
	ExitError              = 255 // another error: a missing spec file, ...
	// ExitUsage is the code of a command line TLC does not accept (an
	// unknown option, a missing value): TLC exits 1 then.
	ExitUsage = 1
)

// ExitCodes is TLC's table of exit codes, in order, with what each means
// here: the command's help and the docs print it.
var ExitCodes = []struct {
	Code int
	Text string
}{
	{ExitSuccess, "success: no error found (and every property checked)"},
	{ExitUsage, "bad command line (an unknown or unsupported option)"},
	{ExitAssumption, "an ASSUME is false or cannot be evaluated"},
	{ExitDeadlock, "deadlock reached"},
	{ExitSafety, "an invariant is violated"},
	{ExitLiveness, "a temporal or action property is violated"},
	{ExitAssert, "Assert failed"},
	{ExitFailure, "an evaluation error in the initial predicate or the next-state relation"},
	{ExitSafetyEval, "an invariant cannot be evaluated"},
	{ExitLivenessEval, "a temporal property cannot be evaluated"},
	{ExitParse, "the spec does not parse or has unknown names"},
	{ExitConfig, "the configuration is wrong"},
	{ExitSystem, "stopped before the end (a bound reached, properties not checked)"},
	{ExitError, "another error (a missing spec file)"},
}

// failureCode is the exit code of an evaluation error: TLC's for a failed
// Assert, else code.
func failureCode(err error, code int) int {
	var ae *stdlib.AssertionError
	if errors.As(err, &ae) {
		return ExitAssert
	}
	return code
}
