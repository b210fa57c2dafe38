package syntax

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var fuzzSeeds = []string{
	"---- MODULE M ----\nFoo == /\\ a\n       /\\ b\n====\n",
	"---- MODULE M ----\nEXTENDS Naturals\nVARIABLE x\nInit == x = 0\nNext == x' = x + 1\nSpec == Init /\\ [][Next]_x /\\ WF_x(Next)\n====\n",
	"---- MODULE M ----\nTHEOREM T == TRUE\n<1>1. QED BY DEF T\nFoo == 1\n====\n",
	"---- MODULE M ----\nf[i \\in S] == [f EXCEPT ![i].a = @ + 1]\nI == INSTANCE N WITH a <- 1\n====\n",
	"---- MODULE M ----\nFoo == {x \\in S : x > 1} \\cup {f(y) : y \\in T} \\cup [a : S] \\X [S -> T]\n====\n",
	"---- MODULE M ----\nFoo == LET a ++ b == a IN CASE a -> 1 [] OTHER -> 2\n====\n",
	"---- MODULE M ----\nFoo == \\A <<a, b>> \\in S : CHOOSE x : LAMBDA y : M!Op(1)!2\n====\n",
	"---- MODULE M ----\n---- MODULE N ----\n====\n(* c *) \\* d\n\"s\\n\"\n====\n",
	"---- MODULE M ----\nFoo == \\b1 + \\o7 + \\hF + 1.5 + <<A>>_v + lbl:: x\n====\n",
	"---- MODULE M ----\nFoo == IF a THEN /\\ b\n                 /\\ c\n          ELSE d\n====\n",
}

// FuzzParse checks that no input makes the parser panic or hang, and that
// errors are single-line *Error values with a position.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	if files := exampleFilesOrNil(); len(files) > 0 {
		for _, p := range []string{"Paxos/Paxos.tla", "TeachingConcurrency/Simple.tla", "ewd998/EWD998.tla", "barriers/Barriers.tla"} {
			if src, err := os.ReadFile(filepath.Join(examplesDir, p)); err == nil {
				f.Add(src)
			}
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		mods, err := ParseSource("F.tla", src)
		checkResult(t, mods, err)
		e, err := ParseExpr("F.tla", string(src))
		if err == nil {
			_ = e.String()
		} else {
			checkError(t, err)
		}
	})
}

func exampleFilesOrNil() []string {
	if _, err := os.Stat(examplesDir); err != nil {
		return nil
	}
	return []string{examplesDir}
}

func checkResult(t *testing.T, mods []*Module, err error) {
	t.Helper()
	if err != nil {
		checkError(t, err)
		return
	}
	if len(mods) == 0 {
		t.Fatal("no modules and no error")
	}
	for _, m := range mods {
		for _, u := range m.Units {
			_ = UnitString(u)
		}
	}
}

func checkError(t *testing.T, err error) {
	t.Helper()
	var perr *Error
	if !errors.As(err, &perr) {
		t.Fatalf("error is %T, not *Error: %v", err, err)
	}
	if strings.Contains(err.Error(), "\n") || perr.Pos.Line < 1 || perr.Pos.Col < 1 {
		t.Fatalf("malformed error %q", err.Error())
	}
	if strings.Contains(perr.Msg, "internal parser error") {
		t.Fatalf("internal error: %v", err)
	}
}

// TestFuzzRegressions replays inputs that once broke the parser.
func TestFuzzRegressions(t *testing.T) {
	inputs := []string{
		"---- MODULE",
		"---- MODULE M",
		"---- MODULE M ----\n<",
		"---- MODULE M ----\nFoo == <<",
		"---- MODULE M ----\nFoo == [",
		"---- MODULE M ----\nFoo == {",
		"---- MODULE M ----\nFoo == M!",
		"---- MODULE M ----\nTHEOREM ASSUME",
		"---- MODULE M ----\nFoo == \"\\",
		"---- MODULE M ----\n(*",
		"---- MODULE M ----\n---- MODULE N ----\n",
		"---- MODULE M ----\nFoo == WF_",
		"---- MODULE M ----\nFoo == [x EXCEPT !",
		"---- MODULE M ----\nFoo(",
		"---- MODULE M ----\nCONSTANT _",
		"---- MODULE M ----\nFoo == x!1!",
		"---- MODULE M ----\n<1>",
		"---- MODULE M ----\nUSE",
		"\xff\xfe---- MODULE M ----\n====",
		"---- MODULE M ----\nFoo == \xff\n====",
	}
	for _, in := range inputs {
		t.Run(fmt.Sprintf("%q", in), func(t *testing.T) {
			mods, err := ParseSource("F.tla", []byte(in))
			checkResult(t, mods, err)
		})
	}
}

// TestParseBigModule parses a long module of typical constructs.
func TestParseBigModule(t *testing.T) {
	src := syntheticModule(20000)
	mods, err := ParseSource("Big.tla", src)
	require.NoError(t, err)
	assert.NotEmpty(t, mods[0].Units)
}

// BenchmarkParseBigModule measures the parser on a 20,000-line module
// (its speed is a benchmark, not a test: the machines are shared).
func BenchmarkParseBigModule(b *testing.B) {
	src := syntheticModule(20000)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := ParseSource("Big.tla", src); err != nil {
			b.Fatal(err)
		}
	}
}

// TestNoBacktrackingBlowup: nested set constructors that look like
// binders must not be re-parsed (this was exponential once: 40 levels
// took hours). The bound only tells a parse that ends from one that
// does not end, whatever the load of the machine.
func TestNoBacktrackingBlowup(t *testing.T) {
	src := "---- MODULE M ----\nFoo == " + strings.Repeat("{x \\in ", 40) + "S" + strings.Repeat("}", 40) + "\n====\n"
	done := make(chan error, 1)
	go func() {
		_, err := ParseSource("M.tla", []byte(src))
		done <- err
	}()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(2 * time.Minute):
		t.Fatal("parsing 40 nested set constructors did not end in 2 minutes: exponential backtracking")
	}
}

// syntheticModule builds a module of about lines lines with typical
// constructs.
func syntheticModule(lines int) []byte {
	var b strings.Builder
	b.WriteString("---- MODULE Big ----\nEXTENDS Naturals, Sequences\nCONSTANTS N, Proc\nVARIABLES x, y, msgs\n")
	n := 4
	for i := 0; n < lines; i++ {
		fmt.Fprintf(&b, `(* Action %d *)
A%d(p) == /\ x[p] < N
         /\ \E q \in Proc \ {p} :
               /\ msgs' = msgs \cup {[type |-> "m", from |-> p, to |-> q, v |-> x[p] + %d]}
               /\ x' = [x EXCEPT ![p] = @ + 1]
         /\ IF y = <<>> THEN UNCHANGED y ELSE y' = Tail(y) \o <<p>>
         /\ LET s == {m \in msgs : m.to = p} IN Cardinality(s) >= 0
`, i, i, i)
		n += 8
	}
	b.WriteString("====\n")
	return []byte(b.String())
}

func BenchmarkParse(b *testing.B) {
	src := syntheticModule(1000)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseSource("Big.tla", src); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseExamples(b *testing.B) {
	files := exampleFiles(b)
	var srcs [][]byte
	total := 0
	for _, p := range files {
		src, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		srcs = append(srcs, src)
		total += len(src)
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	for b.Loop() {
		for i, src := range srcs {
			if _, err := ParseSource(files[i], src); err != nil {
				b.Fatal(err)
			}
		}
	}
}
