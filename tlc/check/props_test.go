package check

import (
	"strings"
	"testing"
)

func TestNotCheckedNeverSuccess(t *testing.T) {
	r := &Result{Result: "success", ExitCode: ExitSuccess}
	r.NotChecked([]Unchecked{{"Live", "a temporal formula"}, {"Safe", "why"}})
	if r.Result != "not-checked" || r.ExitCode == ExitSuccess {
		t.Fatalf("result %s exit %d", r.Result, r.ExitCode)
	}
	if !strings.HasPrefix(r.Error, "2 properties NOT checked: Live (a temporal formula), Safe (why)") {
		t.Fatalf("error %q", r.Error)
	}
	// A violation found by the search stands.
	v := &Result{Result: "invariant", ExitCode: ExitSafety}
	v.NotChecked([]Unchecked{{"Live", "x"}})
	if v.Result != "invariant" || v.ExitCode != ExitSafety {
		t.Fatalf("violation changed: %s %d", v.Result, v.ExitCode)
	}
	// Nothing unchecked: success stays success.
	s := &Result{Result: "success"}
	s.NotChecked(nil)
	if s.Result != "success" {
		t.Fatal(s.Result)
	}
}
