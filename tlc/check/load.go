package check

import (
	"errors"

	"github.com/modelfuzz/modelfuzz/tlc/eval"
	"github.com/modelfuzz/modelfuzz/tlc/syntax"
)

// LoadFailure is TLC's exit code and result name for an error loading a
// spec and its configuration: a false assumption, a config error, a parse
// error, or another failure.
func LoadFailure(err error) (int, string) {
	var se *syntax.Error
	var le *eval.LoadError
	var ce *eval.ConfigError
	var af *eval.AssumeFailure
	var ef *eval.EvalFailure
	switch {
	case errors.As(err, &af):
		return ExitAssumption, "assumption"
	case errors.As(err, &ef) && ef.What == "evaluating an ASSUME":
		// TLC: an assumption that cannot be evaluated is reported as one
		// that is false.
		return failureCode(err, ExitAssumption), "assumption"
	case errors.As(err, &ef) && ef.What == eval.InvariantLevel:
		return ExitSafetyEval, "error"
	case errors.As(err, &ef):
		return failureCode(err, ExitFailure), "error"
	case errors.As(err, &ce):
		return ExitConfig, "config-error"
	case errors.As(err, &se), errors.As(err, &le):
		return ExitParse, "parse-error"
	}
	return ExitFailure, "error"
}
