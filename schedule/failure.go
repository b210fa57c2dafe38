package schedule

import (
	"fmt"
	"runtime"
	"strings"
)

// FailureKind says which oracle saw a failure: what kind of bug it is.
// The strings are the wire form (executions' and bugs' JSON, the corpus,
// reports).
type FailureKind string

// The kinds of failure.
const (
	// FailurePanic: the system panicked or crashed (Guard, PanicFailure).
	FailurePanic FailureKind = "panic"
	// FailureSafety: a safety property of the system's own state failed
	// (the etcdraft adapter's oracles).
	FailureSafety FailureKind = "safety"
	// FailureLinearizability: the client history is not linearizable
	// (package linearize).
	FailureLinearizability FailureKind = "linearizability"
	// FailureHang: an execution did not finish within the execution
	// timeout.
	FailureHang FailureKind = "hang"
	// FailureDivergence: the model does not allow what the system did (a
	// bug of the system, or of the model).
	FailureDivergence FailureKind = "divergence"
	// FailureModelInvariant: an invariant of the model, or of the
	// maintainers' spec, fails in a state the execution reached.
	FailureModelInvariant FailureKind = "model-invariant"
	// FailureSpecDivergence: the maintainers' spec does not allow the
	// library's own trace (trace validation).
	FailureSpecDivergence FailureKind = "spec-divergence"
	// FailureScenario: a filter test's scenario entered its rejecting
	// state.
	FailureScenario FailureKind = "scenario"
	// FailureExit: a replica (a real process) exited by itself.
	FailureExit FailureKind = "exit"
	// FailureRestart: a restarted replica could not start or was not
	// ready in time.
	FailureRestart FailureKind = "restart"
	// FailureUnresponsive: a replica did not answer a call in time.
	FailureUnresponsive FailureKind = "unresponsive"
	// FailureProtocol: a replica answered the fuzzer's call outside the
	// interception API.
	FailureProtocol FailureKind = "protocol"
)

// FromModel reports whether failures of kind k are seen by the model (the
// campaign's, or the maintainers' spec) rather than by the system's own
// oracles: a test of the system alone cannot show them.
func (k FailureKind) FromModel() bool {
	switch k {
	case FailureDivergence, FailureModelInvariant, FailureSpecDivergence:
		return true
	}
	return false
}

// Guard runs f, the steps of an in-process system, and turns a panic of the
// system under test into a Failure whose signature is built from the panic
// message (with numbers blanked out) and the top frames of the panicking
// stack, so the same bug found twice has one signature. *step is read when
// the panic happens: f keeps it at the index of the step it is running.
func Guard(step *int, f func()) (fail *Failure) {
	defer func() {
		if r := recover(); r != nil {
			if f, ok := r.(*Failure); ok {
				// A failure the system caught elsewhere (in a goroutine
				// of its own) and raised here.
				fail = f
				return
			}
			fail = PanicFailure(*step, r, 3)
		}
	}()
	f()
	return nil
}

// PanicFailure builds the failure for a recovered panic value r. It must be
// called from the deferred function that recovered, so that the panicking
// frames are still on the stack; frames names the number of frames of the
// system's code that make up the signature.
func PanicFailure(step int, r any, frames int) *Failure {
	return PanicFailureSkipping(step, r, frames)
}

// PanicFailureSkipping is PanicFailure leaving out of the signature the
// frames of functions whose names contain one of skip (wrappers that a
// system adds around a panic it catches in a goroutine of its own).
func PanicFailureSkipping(step int, r any, frames int, skip ...string) *Failure {
	pcs := make([]uintptr, 64)
	n := runtime.Callers(2, pcs)
	it := runtime.CallersFrames(pcs[:n])
	var top []string
	var stack strings.Builder
	afterPanic := false
	for {
		fr, more := it.Next()
		if afterPanic && !strings.HasPrefix(fr.Function, "runtime.") {
			fmt.Fprintf(&stack, "%s\n\t%s:%d\n", fr.Function, fr.File, fr.Line)
			if len(top) < frames && !strings.HasSuffix(fr.Function, ".Guard") && !skipped(fr.Function, skip) {
				top = append(top, shortFunc(fr.Function))
			}
		}
		if fr.Function == "runtime.gopanic" || strings.HasPrefix(fr.Function, "runtime.panic") || strings.HasPrefix(fr.Function, "runtime.sigpanic") {
			afterPanic = true
		}
		if !more {
			break
		}
	}
	msg := fmt.Sprint(r)
	return &Failure{
		Kind:      FailurePanic,
		Signature: "panic: " + BlankNumbers(msg) + " @ " + strings.Join(top, " < "),
		Message:   msg,
		Step:      step,
		Detail:    stack.String(),
	}
}

// shortFunc strips the module path from a function name:
// "github.com/x/y/adapters/microbench.(*worker).handle" -> "microbench.(*worker).handle".
func shortFunc(f string) string {
	if i := strings.LastIndexByte(f, '/'); i >= 0 {
		return f[i+1:]
	}
	return f
}

// BlankNumbers replaces every run of digits by "N", so that messages that
// differ only in ids, terms or indexes give the same signature.
func BlankNumbers(s string) string {
	var b strings.Builder
	inNum := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= '0' && c <= '9' {
			if !inNum {
				b.WriteByte('N')
			}
			inNum = true
			continue
		}
		inNum = false
		b.WriteByte(c)
	}
	return b.String()
}

func skipped(fn string, skip []string) bool {
	for _, s := range skip {
		if strings.Contains(fn, s) {
			return true
		}
	}
	return false
}
