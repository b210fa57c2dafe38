package process

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/hashicorp/go-hclog"

	"github.com/modelfuzz/modelfuzz/internal/osproc"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// Options are the settings of a factory that are not part of the cluster
// (they do not change what an execution does).
type Options struct {
	// Logger receives the interception server's complaints (a bad request
	// of a replica) and the replicas' lifecycle at debug level. Default:
	// discard.
	Logger hclog.Logger
	// StateDir holds the registry of running process groups and the
	// executions' data directories. Default: os.TempDir()/modelfuzz-process.
	StateDir string
	// OutputLimit is how many bytes of each replica's stdout and of its
	// stderr an execution keeps (the last ones). Default: 64 KiB.
	OutputLimit int
}

const defaultOutputLimit = 64 << 10

// DefaultStateDir is the state directory when Options.StateDir is empty.
func DefaultStateDir() string { return filepath.Join(os.TempDir(), "modelfuzz-process") }

// Factory makes Systems of one cluster file. It is safe for concurrent
// use; the Systems it makes are independent (each its own interception
// server, ports and directories). Call Close when done: it closes every
// System the factory made.
type Factory struct {
	cl      *Cluster
	command string // resolved executable
	opts    Options
	reg     *osproc.Registry
	spec    *schedule.SystemSpec
	config  json.RawMessage

	mu      sync.Mutex
	systems map[*System]bool
	closed  bool
}

// NewFactory loads a cluster file and returns its factory. It first kills
// the replicas and removes the directories that fuzzers killed before they
// could clean up left in the state directory.
func NewFactory(clusterFile string, opts Options) (*Factory, error) {
	cl, err := LoadCluster(clusterFile)
	if err != nil {
		return nil, err
	}
	return newFactory(cl, opts)
}

// FactoryFromConfig rebuilds a factory from Factory.Config (stored with a
// campaign). Relative paths resolve against the "dir" recorded in it.
func FactoryFromConfig(raw json.RawMessage, opts Options) (*Factory, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	cl, err := ParseCluster(raw, wd)
	if err != nil {
		return nil, fmt.Errorf("process: stored cluster configuration: %w", err)
	}
	return newFactory(cl, opts)
}

func newFactory(cl *Cluster, opts Options) (*Factory, error) {
	command, err := cl.resolveCommand()
	if err != nil {
		return nil, fmt.Errorf("cluster %s: %w", cl.Name, err)
	}
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	if opts.StateDir == "" {
		opts.StateDir = DefaultStateDir()
	}
	if opts.OutputLimit <= 0 {
		opts.OutputLimit = defaultOutputLimit
	}
	reg, err := osproc.OpenRegistry(opts.StateDir)
	if err != nil {
		return nil, err
	}
	config, err := json.Marshal(cl)
	if err != nil {
		return nil, err
	}
	var actions []schedule.Action
	for _, a := range schedule.BaseActions {
		switch {
		case (a == schedule.Deliver || a == schedule.Timeout) && !cl.register():
		case a == schedule.Request && cl.Request == nil:
		default:
			actions = append(actions, a)
		}
	}
	names := make([]string, cl.Processes)
	for p := range names {
		names[p] = "n" + strconv.Itoa(p+1)
	}
	return &Factory{
		cl: cl, command: command, opts: opts, reg: reg, config: config,
		spec:    &schedule.SystemSpec{Name: cl.Name, Processes: cl.Processes, Actions: actions, ProcessNames: names, ProcessArgs: []string{schedule.ArgVote}},
		systems: map[*System]bool{},
	}, nil
}

// Spec implements schedule.Factory.
func (f *Factory) Spec() *schedule.SystemSpec { return f.spec }

// Config implements schedule.Factory: the cluster file, normalized (defaults
// filled in, "dir" absolute), so that a replay rebuilds the same cluster.
func (f *Factory) Config() json.RawMessage { return f.config }

// Cluster returns the factory's cluster configuration. It must not be
// modified.
func (f *Factory) Cluster() *Cluster { return f.cl }

// New implements schedule.Factory. The System must be closed (System.Close
// or Factory.Close).
func (f *Factory) New() (schedule.System, error) {
	return f.NewSystem()
}

// NewSystem is New with the concrete type.
func (f *Factory) NewSystem() (*System, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil, errors.New("process: New on a closed factory")
	}
	dir, err := f.reg.NewRunDir()
	if err != nil {
		return nil, err
	}
	s := &System{fac: f, cl: f.cl, spec: f.spec, log: f.opts.Logger.Named(f.cl.Name), runDir: dir}
	f.systems[s] = true
	return s, nil
}

// Close closes every System the factory made (stopping their replicas and
// removing their directories) and releases the state directory. The
// factory cannot make Systems afterwards.
func (f *Factory) Close() error {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return nil
	}
	f.closed = true
	systems := make([]*System, 0, len(f.systems))
	for s := range f.systems {
		systems = append(systems, s)
	}
	f.mu.Unlock()
	var errs []error
	for _, s := range systems {
		errs = append(errs, s.Close())
	}
	f.reg.Release()
	return errors.Join(errs...)
}

func (f *Factory) forget(s *System) {
	f.mu.Lock()
	delete(f.systems, s)
	f.mu.Unlock()
}
