//go:build !race

package check

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelfuzz/modelfuzz/tlc/eval"
)

// examplesDir is the conformance suite: real specs with the state counts
// TLC reported for them (../shared/tla-examples, beside the repository).
const examplesDir = "../../../shared/tla-examples"

// Case is one row of cases.tsv.
type Case struct {
	SpecDir, Module, Cfg string
	Distinct, Total      int64
	Depth                int
	Features             string
	TLCRuntime           time.Duration
}

// Name is the case's name, module/cfg, as scripts/conformance.sh and
// docs/tla-support.md write it.
func (c Case) Name() string {
	m := strings.TrimSuffix(filepath.Base(c.Module), ".tla")
	cf := strings.TrimSuffix(filepath.Base(c.Cfg), ".cfg")
	return m + "/" + cf
}

func readCases(t testing.TB) []Case {
	f, err := os.Open(filepath.Join(examplesDir, "cases.tsv"))
	if err != nil {
		t.Skipf("conformance suite not found (%v): it lives in ../shared/tla-examples beside the repository", err)
	}
	defer f.Close()
	var out []Case
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	first := true
	for sc.Scan() {
		if first {
			first = false
			continue
		}
		col := strings.Split(sc.Text(), "\t")
		if len(col) < 9 {
			continue
		}
		c := Case{SpecDir: col[0], Module: col[1], Cfg: col[2], Features: col[6]}
		c.Distinct, _ = strconv.ParseInt(col[3], 10, 64)
		c.Total, _ = strconv.ParseInt(col[4], 10, 64)
		c.Depth, _ = strconv.Atoi(col[5])
		if p := strings.Split(col[8], ":"); len(p) == 3 {
			h, _ := strconv.Atoi(p[0])
			m, _ := strconv.Atoi(p[1])
			s, _ := strconv.Atoi(p[2])
			c.TLCRuntime = time.Duration(h*3600+m*60+s) * time.Second
		}
		out = append(out, c)
	}
	return out
}

// knownGaps reads the documented differences from docs/tla-support.md (the
// rows "| `case` | ..." of its table), so the document and the test cannot
// disagree.
func knownGaps(t testing.TB) map[string]string {
	b, err := os.ReadFile("../../docs/tla-support.md")
	if err != nil {
		t.Fatalf("docs/tla-support.md: %v", err)
	}
	gaps := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cols := strings.Split(line, "|")
		name := strings.Trim(strings.TrimSpace(cols[1]), "`")
		gaps[name] = strings.TrimSpace(cols[len(cols)-2])
	}
	return gaps
}

func runCase(c Case) (*Result, error) {
	m, err := eval.Load(filepath.Join(examplesDir, c.Module), filepath.Join(examplesDir, c.Cfg))
	if err != nil {
		return nil, err
	}
	m.Out = discard{}
	limit := c.Distinct*4 + 1000 // a runaway search stops instead of eating memory
	// With the PROPERTIES, as TLC checks them: every case passes under TLC,
	// so TLC's verdict is success with every property checked.
	return CheckWithProperties(m, Options{Workers: 2, MaxStates: limit}), nil
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

func TestConformance(t *testing.T) {
	cases := readCases(t)
	gaps := knownGaps(t)
	only := os.Getenv("CONFORMANCE_CASE")
	var verdicts, ran int
	defer func() {
		t.Logf("TLC's verdict, every property checked, on %d of %d cases", verdicts, ran)
	}()
	for _, c := range cases {
		c := c
		if only != "" && !strings.Contains(c.Name(), only) {
			continue
		}
		t.Run(c.Name(), func(t *testing.T) {
			start := time.Now()
			res, err := runCase(c)
			if err != nil {
				t.Fatalf("load: %v", err)
			}
			el := time.Since(start)
			ran++
			if res.Result == "success" {
				verdicts++
			}
			t.Logf("%v (TLC %v)", el.Round(time.Millisecond), c.TLCRuntime)
			if res.Result != "success" {
				t.Fatalf("result %s (exit %d): %s", res.Result, res.ExitCode, res.Error)
			}
			if why, ok := gaps[c.Name()]; ok && res.Distinct == c.Distinct && res.Generated == c.Total {
				t.Skipf("documented difference (depth %d, TLC %d): %s", res.Depth, c.Depth, why)
			}
			if res.Distinct != c.Distinct || res.Depth != c.Depth || res.Generated != c.Total {
				t.Fatalf("distinct %d depth %d, TLC: distinct %d depth %d (generated %d vs %d)", res.Distinct, res.Depth, c.Distinct, c.Depth, res.Generated, c.Total)
			}
			t.Log(fmt.Sprintf("distinct %d generated %d (TLC %d) depth %d in %v", res.Distinct, res.Generated, c.Total, res.Depth, el.Round(time.Millisecond)))
		})
	}
}
