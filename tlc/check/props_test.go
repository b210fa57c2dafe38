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

// TestViolatedMessage checks TLC's wording of the temporal properties a
// counterexample violates (tlc2.output.MP, EC 2116), none attributed
// included.
func TestViolatedMessage(t *testing.T) {
	for _, c := range []struct {
		names []string
		want  string
	}{
		{nil, "Temporal properties were violated."},
		{[]string{"P"}, "Temporal property P was violated."},
		{[]string{"P", "Q"}, "Temporal properties P and Q were violated."},
		{[]string{"P", "Q", "R"}, "Temporal properties P, Q, and R were violated."},
	} {
		if got := violatedMessage(c.names); got != c.want {
			t.Errorf("violatedMessage(%q) = %q, want %q", c.names, got, c.want)
		}
	}
}
