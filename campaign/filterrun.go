package campaign

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/modelfuzz/modelfuzz/models"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// FilterRun is how the command line runs filter tests: on one system,
// with a model for their model predicates ("": none), and settings that
// win over each test's own when given (0: not given).
type FilterRun struct {
	System     *System
	Model      string
	Steps      int
	Executions int
	Seed       uint64
}

// RunFile runs the filter test in path. A test's harness is the adapter's
// shape, one message a delivery and 6 timeouts, with the test's steps,
// requests, crashes and timeouts; its executions are 100 unless the test
// or the command line says.
func (fr *FilterRun) RunFile(path string) (*FilterResult, error) {
	t, err := LoadFilterTest(path)
	if err != nil {
		return nil, err
	}
	sys := fr.System
	h := schedule.Harness{Shape: schedule.Shape{Steps: sys.Adapter.Steps, MaxMessages: 1, Requests: sys.Adapter.Requests}, Timeouts: 6}
	set := func(dst *int, fromFile, fromFlag int) {
		if fromFile > 0 {
			*dst = fromFile
		}
		if fromFlag > 0 {
			*dst = fromFlag
		}
	}
	set(&h.Steps, t.Steps, fr.Steps)
	if h.Steps > schedule.MaxSteps {
		return nil, fmt.Errorf("test %s: %d steps an execution: at most %d (schedule.MaxSteps)", path, h.Steps, schedule.MaxSteps)
	}
	set(&h.Requests, t.Requests, 0)
	set(&h.CrashQuota, t.Crashes, 0)
	set(&h.Timeouts, t.Timeouts, 0)
	n := 100
	set(&n, t.Executions, fr.Executions)
	ft := &FilterTest{Test: t, System: sys, Harness: h, Executions: n, Seed: fr.Seed}
	if fr.Model != "" && len(t.Models) > 0 {
		mp, consts, err := sys.Mapper()
		if err != nil {
			return nil, err
		}
		if ft.Model, err = LoadFilterModel(models.Spec{Model: fr.Model, Consts: consts}, t, mp); err != nil {
			return nil, err
		}
	}
	return ft.Run()
}

// SaveFailed writes the input of each failing signature's first execution
// of the test in path into dir, as TEST-N.json (test run --save).
func SaveFailed(dir, path string, res *FilterResult) error {
	if len(res.Failed) == 0 {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("--save: %v", err)
	}
	base := filepath.Base(path)
	base = base[:len(base)-len(filepath.Ext(base))]
	for k, f := range res.Failed {
		out := filepath.Join(dir, fmt.Sprintf("%s-%d.json", base, k+1))
		if err := os.WriteFile(out, schedule.EncodeInput(f.Input), 0o644); err != nil {
			return fmt.Errorf("--save: %v", err)
		}
	}
	return nil
}
