package process

import (
	"bytes"
	"fmt"
	"io"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// Replay is the outcome of running one input several times.
type Replay struct {
	Runs      int // executions
	Identical int // traces byte-equal to the first (the first included)
	// FirstDiff is the index of the first run whose trace differs from the
	// first run's, -1 when all agree; First and Diff are the two traces
	// (EncodeTrace) to compare.
	FirstDiff   int
	First, Diff []byte
}

// ReplayRate executes in n times on one System of fac and compares the
// traces: a deterministic system has Identical == Runs. It works with any
// factory; a System that is an io.Closer is closed at the end.
func ReplayRate(fac schedule.Factory, in *schedule.Input, n int) (Replay, error) {
	r := Replay{FirstDiff: -1}
	if n < 1 {
		return r, fmt.Errorf("replay: want at least 1 run, got %d", n)
	}
	sys, err := fac.New()
	if err != nil {
		return r, err
	}
	if c, ok := sys.(io.Closer); ok {
		defer c.Close()
	}
	for i := 0; i < n; i++ {
		ex, err := sys.Execute(in)
		if err != nil {
			return r, fmt.Errorf("replay: run %d: %w", i+1, err)
		}
		tr := schedule.EncodeTrace(ex.Trace)
		r.Runs++
		switch {
		case i == 0:
			r.First = tr
			r.Identical++
		case bytes.Equal(tr, r.First):
			r.Identical++
		case r.FirstDiff < 0:
			r.FirstDiff, r.Diff = i, tr
		}
	}
	return r, nil
}
