package campaign

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/modelfuzz/modelfuzz/fuzzer"
	"github.com/modelfuzz/modelfuzz/guidance"
	"github.com/modelfuzz/modelfuzz/linecov"
)

// Uncovered is run --uncovered FILE: at the end of the session, the
// functions of the system under test's instrumented packages (in a coverage
// build, go.etcd.io/raft/v3) that no execution of the session reached. Its
// methods do nothing on a nil report (no --uncovered).
type Uncovered struct {
	path    string
	f       *os.File
	tracker *linecov.Tracker
	written bool
}

// OpenUncovered checks, before the campaign starts, that this binary can
// tell covered units (a coverage build) and that FILE can be written.
func OpenUncovered(path string) (*Uncovered, error) {
	if path == "" {
		return nil, nil
	}
	if err := linecov.Available(); err != nil {
		return nil, errors.New("--uncovered needs a coverage build of modelfuzz: make cover, then run ./modelfuzz-cover")
	}
	t, err := linecov.NewTracker()
	if err != nil {
		return nil, fmt.Errorf("--uncovered: %v", err)
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--uncovered: %v", err)
	}
	return &Uncovered{path: path, f: f, tracker: t}, nil
}

// Check refuses an adapter whose system has no line coverage.
func (u *Uncovered) Check(ad *Adapter) error {
	if u == nil || ad.LineCoverage {
		return nil
	}
	return fmt.Errorf("--uncovered: adapter %s has no line coverage (its system is not instrumented; etcdraft is)", ad.Name)
}

// Write writes the report of the session that sum summarizes.
func (u *Uncovered) Write(sum *fuzzer.Summary) error {
	if u == nil {
		return nil
	}
	c := u.tracker.Coverage(guidance.CoveredUnits())
	opt := linecov.ReportOptions{
		Title: fmt.Sprintf("functions of %s never reached by this session's executions (%d iterations; campaign total %d)",
			packagesText(u.tracker.Packages()), sum.Session, sum.Iterations),
	}
	if n, ok := sum.Coverage[guidance.MeasureLines]; ok {
		opt.Notes = append(opt.Notes, fmt.Sprintf("lines_covered as the campaign reports it: %d (over every session of the campaign)", n))
	}
	err := c.WriteReport(u.f, opt)
	if cerr := u.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("--uncovered: %v", err)
	}
	u.written = true
	return nil
}

// Abandon removes FILE when no report was written into it (the campaign
// did not start).
func (u *Uncovered) Abandon() {
	if u == nil || u.written {
		return
	}
	u.f.Close()
	os.Remove(u.path)
}

// packagesText names packages briefly: "go.etcd.io/raft/v3/... (8
// packages)" when the first is a prefix of all others.
func packagesText(pkgs []string) string {
	if len(pkgs) == 1 {
		return pkgs[0]
	}
	for _, p := range pkgs[1:] {
		if !strings.HasPrefix(p, pkgs[0]+"/") {
			return strings.Join(pkgs, ", ")
		}
	}
	return fmt.Sprintf("%s/... (%d packages)", pkgs[0], len(pkgs))
}
