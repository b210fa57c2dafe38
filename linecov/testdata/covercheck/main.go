// Command covercheck exercises package linecov in a binary built with
// coverage of package sample (linecov's tests build and run it):
//
//	covercheck check      prints a JSON report of executions of sample's code
//	covercheck bench N    times N rounds of Reset, sample.A, Covered
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"runtime/coverage"
	"strconv"
	"time"

	"github.com/modelfuzz/modelfuzz/linecov"
	"github.com/modelfuzz/modelfuzz/linecov/testdata/sample"
)

// Execution is what Covered saw after one execution.
type Execution struct {
	Items      []uint64 `json:"items"`
	Describe   []string `json:"describe"`
	Statements int      `json:"statements"` // of the covered units
}

// Report is the output of check.
type Report struct {
	Packages        []string  `json:"packages"`
	TotalStatements int       `json:"total_statements"`
	Units           int       `json:"units"`
	None            Execution `json:"none"`               // nothing executed
	A               Execution `json:"a"`                  // sample.A(1)
	ACapped         Execution `json:"a_capped"`           // sample.A(100)
	AAgain          Execution `json:"a_again"`            // sample.A(1) once more
	B               Execution `json:"b"`                  // (&sample.Counter{}).B(3)
	Meta            []byte    `json:"meta"`               // WriteMeta
	CountersA       []byte    `json:"counters_a"`         // WriteCounters after sample.A(1)
	Unknown         int       `json:"unknown_statements"` // Statements of an unknown item
}

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "covercheck:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 2 && args[0] == "bench" {
		n, err := strconv.Atoi(args[1])
		if err != nil {
			return err
		}
		return bench(n)
	}
	if len(args) != 1 || args[0] != "check" {
		return fmt.Errorf("usage: covercheck check | covercheck bench N")
	}
	if err := linecov.Available(); err != nil {
		return err
	}
	t, err := linecov.NewTracker()
	if err != nil {
		return err
	}
	rep := Report{Packages: t.Packages(), TotalStatements: t.TotalStatements(), Units: t.Units(), Unknown: t.Statements(42)}
	execute := func(f func()) (Execution, error) {
		var ex Execution
		if err := t.Reset(); err != nil {
			return ex, err
		}
		f()
		items, err := t.Covered(nil)
		if err != nil {
			return ex, err
		}
		ex.Items = items
		for _, it := range items {
			ex.Describe = append(ex.Describe, t.Describe(it))
			ex.Statements += t.Statements(it)
		}
		return ex, nil
	}
	steps := []struct {
		ex *Execution
		f  func()
	}{
		{&rep.None, func() {}},
		{&rep.A, func() { sample.A(1) }},
		{&rep.ACapped, func() { sample.A(100) }},
		{&rep.AAgain, func() { sample.A(1) }},
		{&rep.B, func() { (&sample.Counter{}).B(3) }},
	}
	for _, s := range steps {
		if *s.ex, err = execute(s.f); err != nil {
			return err
		}
	}

	// The raw bytes, for decoding them in the test process.
	var meta, ctrs bytes.Buffer
	if err := coverage.WriteMeta(&meta); err != nil {
		return err
	}
	if err := coverage.ClearCounters(); err != nil {
		return err
	}
	sample.A(1)
	if err := coverage.WriteCounters(&ctrs); err != nil {
		return err
	}
	rep.Meta, rep.CountersA = meta.Bytes(), ctrs.Bytes()
	return json.NewEncoder(os.Stdout).Encode(rep)
}

// BenchResult is the output of bench.
type BenchResult struct {
	N       int     `json:"n"`
	NsPerOp float64 `json:"ns_per_op"`
	Allocs  float64 `json:"allocs_per_op"`
	Bytes   float64 `json:"bytes_per_op"`
}

func bench(n int) error {
	t, err := linecov.NewTracker()
	if err != nil {
		return err
	}
	var dst []uint64
	round := func(i int) error {
		if err := t.Reset(); err != nil {
			return err
		}
		sample.A(i)
		dst, err = t.Covered(dst[:0])
		return err
	}
	if err := round(0); err != nil { // warm the buffers
		return err
	}
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	start := time.Now()
	for i := 0; i < n; i++ {
		if err := round(i); err != nil {
			return err
		}
	}
	el := time.Since(start)
	runtime.ReadMemStats(&m1)
	return json.NewEncoder(os.Stdout).Encode(BenchResult{
		N:       n,
		NsPerOp: float64(el.Nanoseconds()) / float64(n),
		Allocs:  float64(m1.Mallocs-m0.Mallocs) / float64(n),
		Bytes:   float64(m1.TotalAlloc-m0.TotalAlloc) / float64(n),
	})
}
