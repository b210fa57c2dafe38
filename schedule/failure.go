package schedule

import (
	"fmt"
	"runtime"
	"strings"
)

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
		Kind:      "panic",
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
