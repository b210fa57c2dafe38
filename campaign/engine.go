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
