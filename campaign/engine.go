package campaign

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/modelfuzz/modelfuzz/models"
	"github.com/modelfuzz/modelfuzz/tlc/sidecar"
	"github.com/modelfuzz/modelfuzz/tlc/sim"
	"github.com/modelfuzz/modelfuzz/tlc/tlcjava"
)

// StartModelEngine starts (or connects to) the model engine of a campaign:
// a supervised sidecar subprocess, the engine in this process, or an
// already running sidecar. The returned function stops it.
func StartModelEngine(spec models.Spec, eng EngineSettings, logger hclog.Logger) (sidecar.Simulator, func(), error) {
	switch {
	case eng.URL != "":
		c := sidecar.NewClient(eng.URL, os.Getenv(sidecar.TokenEnv), time.Minute)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := c.Health(ctx); err != nil {
			return nil, nil, fmt.Errorf("--tlc-url %s: %v", eng.URL, err)
		}
		return c, func() {}, nil
	case eng.Mode == "inproc":
		s, err := loadSimulator(spec)
		if err != nil {
			return nil, nil, err
		}
		return sidecar.InProc{Simulator: s}, func() {}, nil
	case eng.Mode == "java" || eng.Mode == "diff":
		return startTLC(spec, eng, logger)
	case strings.HasPrefix(eng.Mode, "http://") || strings.HasPrefix(eng.Mode, "https://"):
		r := tlcjava.NewReference(eng.Mode, 2*time.Minute)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		// One empty execution: the server answers, and speaks /execute.
		if _, err := r.Execute(ctx, []sidecar.Event{{Reset: true}}); err != nil {
			return nil, nil, fmt.Errorf("--tlc %s: %v", eng.Mode, err)
		}
		return r, func() {}, nil
	}
	// Check the model here first: a broken model is a clear error now,
	// not a sidecar that keeps dying.
	if _, err := models.Load(spec); err != nil {
		return nil, nil, modelError(spec.Model, err)
	}
	args := []string{"tlc", "serve", "--model", spec.Model}
	if spec.Config != "" {
		args = append(args, "--config", spec.Config)
	}
	for _, c := range spec.Consts {
		args = append(args, "--const", c)
	}
	p, err := sidecar.Launch(context.Background(), sidecar.LaunchOptions{Args: args, Stderr: os.Stderr})
	if err != nil {
		return nil, nil, fmt.Errorf("starting the model engine: %v", err)
	}
	logger.Debug("model sidecar started", "pid", p.PID())
	return p, func() {
		if n := p.Restarts(); n > 0 {
			logger.Info("the model sidecar was restarted", "restarts", n)
		}
		p.Close()
	}, nil
}

// startTLC runs TLC itself as the engine (--tlc java), or beside the
// native engine with every answer compared (--tlc diff). The spec's files
// are written for TLC into a directory removed when the engine stops.
func startTLC(spec models.Spec, eng EngineSettings, logger hclog.Logger) (sidecar.Simulator, func(), error) {
	opt := tlcjava.Options{Jar: eng.Jar, Logger: logger}
	// The native engine, when it loads the model, gives the variables'
	// order (the key of a model without a VIEW), the conjunct of a
	// divergence, and the other side of --tlc diff.
	native, nerr := loadSimulator(spec)
	if native != nil {
		opt.Vars = native.Model().Vars
		if eng.Mode == "java" {
			opt.Explainer = sidecar.InProc{Simulator: native}
		}
	} else if eng.Mode == "diff" {
		return nil, nil, nerr
	} else {
		logger.Warn("the native engine does not load the model: TLC's divergences will have no conjunct", "error", nerr)
	}
	dir, err := os.MkdirTemp("", "modelfuzz-tlc-")
	if err != nil {
		return nil, nil, err
	}
	opt.Module, opt.Config, opt.Libs, err = models.WriteForTLC(spec, dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, modelError(spec.Model, err)
	}
	e, err := tlcjava.Start(context.Background(), opt)
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	logger.Info("TLC started", "pid", e.PID(), "compile", e.Compile.Round(time.Millisecond), "jvm_start", e.Start.Round(time.Millisecond))
	stop := func() {
		if n := e.Restarts(); n > 0 {
			logger.Warn("the TLC JVM was restarted", "restarts", n)
		}
		e.Close()
		os.RemoveAll(dir)
	}
	if eng.Mode == "java" {
		return e, stop, nil
	}
	d := &tlcjava.Diff{A: sidecar.InProc{Simulator: native}, B: e, NameA: "native", NameB: "TLC", SaveDir: eng.DiffDir, Mutants: 1}
	return d, func() {
		reqs, mutants, diverged := d.Counts()
		logger.Info("the engines agree", "executions", reqs, "mutated_action_sequences", mutants, "of_them_diverged", diverged)
		stop()
	}, nil
}

// loadSimulator loads a model into an in-process engine.
func loadSimulator(spec models.Spec) (*sim.Simulator, error) {
	m, err := models.Load(spec)
	if err != nil {
		return nil, modelError(spec.Model, err)
	}
	s, err := sim.New(m, 0)
	if err != nil {
		return nil, modelError(spec.Model, err)
	}
	return s, nil
}

// IsEmbeddedModel reports whether name names a model shipped in the binary.
func IsEmbeddedModel(name string) bool {
	for _, e := range models.Embedded() {
		if name == e || name+".tla" == e {
			return true
		}
	}
	return false
}

// modelError names the model in err, once: errors of models.Load may name
// it already.
func modelError(model string, err error) error {
	if strings.HasPrefix(err.Error(), "model "+model+":") {
		return err
	}
	return fmt.Errorf("model %s: %v", model, err)
}
