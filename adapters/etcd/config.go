package etcd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/modelfuzz/modelfuzz/internal/osproc"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// Config is a cluster's configuration, stored with a campaign.
type Config struct {
	Nodes int `json:"nodes"`
	// Binary is the etcd executable (absolute); ServerVersion what its
	// --version says; Module the go.etcd.io/etcd/server/v3 version it was
	// built from, when modelfuzz built it.
	Binary        string `json:"binary"`
	ServerVersion string `json:"server_version"`
	Module        string `json:"module,omitempty"`
	// HeartbeatMS and ElectionMS are etcd's --heartbeat-interval and
	// --election-timeout; StepMS the real time each step lasts after its
	// action.
	HeartbeatMS int  `json:"heartbeat_ms"`
	ElectionMS  int  `json:"election_ms"`
	StepMS      int  `json:"step_ms"`
	PreVote     bool `json:"prevote"`
	// Keys is how many keys the client operations use.
	Keys int `json:"keys"`
	// RequestTimeoutMS bounds each client call; StartTimeoutMS a
	// member's start; SettleMS how long the members get to catch up after
	// the last step.
	RequestTimeoutMS int `json:"request_timeout_ms"`
	StartTimeoutMS   int `json:"start_timeout_ms"`
	SettleMS         int `json:"settle_ms"`
	// Inject seeds a fault the oracles must see (tests): InjectCorruptRead,
	// InjectCorruptMember.
	Inject string `json:"inject,omitempty"`
}

// The faults Inject seeds.
const (
	// InjectCorruptRead: the client side corrupts the value of every
	// linearizable read that finds one, as a proxy between client and
	// server would: the linearizability oracle must see it.
	InjectCorruptRead = "corrupt-read"
	// InjectCorruptMember: after the cluster has caught up, the last
	// member is stopped, one value in its backend is changed behind
	// etcd's back, and it is started again: the key-space comparison
	// must see it.
	InjectCorruptMember = "corrupt-member"
)

// DefaultConfig is the configuration of `--adapter etcd` without flags
// (Binary left to ResolveBinary).
func DefaultConfig() Config {
	return Config{Nodes: 3, HeartbeatMS: 25, ElectionMS: 250, StepMS: 25, PreVote: true, Keys: 2,
		RequestTimeoutMS: 2000, StartTimeoutMS: 30000, SettleMS: 15000}
}

// DebianBinary is where Debian's etcd-server package installs etcd.
const DebianBinary = "/usr/bin/etcd"

func (c *Config) check() error {
	switch {
	case c.Nodes < 1 || c.Nodes > 7:
		return fmt.Errorf("etcd: --nodes %d: want 1..7", c.Nodes)
	case c.HeartbeatMS < 1:
		return fmt.Errorf("etcd: heartbeat interval %dms: want at least 1", c.HeartbeatMS)
	case c.ElectionMS < 5*c.HeartbeatMS:
		return fmt.Errorf("etcd: election timeout %dms: etcd wants at least 5 heartbeat intervals (%dms)", c.ElectionMS, 5*c.HeartbeatMS)
	case c.StepMS < 0 || c.Keys < 1 || c.RequestTimeoutMS < 1 || c.StartTimeoutMS < 1 || c.SettleMS < 1:
		return errors.New("etcd: step, keys and timeouts must be positive")
	case c.Inject != "" && c.Inject != InjectCorruptRead && c.Inject != InjectCorruptMember:
		return fmt.Errorf("etcd: unknown --inject %q (known: %s, %s)", c.Inject, InjectCorruptRead, InjectCorruptMember)
	case c.Binary == "":
		return errors.New("etcd: no etcd binary")
	}
	return nil
}

// Options are a factory's settings that do not change what an execution
// does.
type Options struct {
	Logger hclog.Logger
	// StateDir holds the registry of running members and the executions'
	// data directories; default os.TempDir()/modelfuzz-etcd.
	StateDir string
	// OutputLimit is how many bytes of each member's output an execution
	// keeps; default 64 KiB.
	OutputLimit int
}

func (o Options) logger() hclog.Logger {
	if o.Logger == nil {
		return hclog.NewNullLogger()
	}
	return o.Logger
}

// DefaultStateDir is the state directory when Options.StateDir is empty.
func DefaultStateDir() string { return filepath.Join(os.TempDir(), "modelfuzz-etcd") }

// Factory makes Systems of one cluster configuration.
type Factory struct {
	cfg  Config
	opts Options
	reg  *osproc.Registry
	spec *schedule.SystemSpec
	raw  json.RawMessage

	mu      sync.Mutex
	systems map[*System]bool
	closed  bool

	// The linearizability checks of every execution's history: decided
	// linearizable, not linearizable, undecided within linearizeTimeout.
	linOK, linViolated, linUnknown atomic.Int64
	// The rejoin checks: the members caught up, or the machine starved
	// them too long to tell (patience).
	rejoinOK, rejoinUnknown atomic.Int64
}

// The names of Factory.Checks' counts.
const (
	CheckLinearizable    = "linearizable"
	CheckNotLinearizable = "not_linearizable"
	CheckLinUnknown      = "linearizability_unknown"
	CheckRejoined        = "rejoined"
	CheckRejoinUnknown   = "rejoin_unknown"
)

func (f *Factory) countCheck(r checkResult) {
	switch r {
	case checkOK:
		f.linOK.Add(1)
	case checkViolated:
		f.linViolated.Add(1)
	case checkUnknown:
		f.linUnknown.Add(1)
	}
}

// Checks counts the oracles' checks of the histories of every execution
// the factory's systems ran (minimizations and replays included): a
// history without an operation to check is not counted; an undecided one
// (porcupine out of time, linearizeTimeout) is "unknown", never a pass.
func (f *Factory) Checks() map[string]int64 {
	return map[string]int64{CheckLinearizable: f.linOK.Load(), CheckNotLinearizable: f.linViolated.Load(),
		CheckLinUnknown: f.linUnknown.Load(), CheckRejoined: f.rejoinOK.Load(), CheckRejoinUnknown: f.rejoinUnknown.Load()}
}

// Actions are the actions the adapter supports: no timeout (etcd's
// timers run on real time: an election starts when a member has not heard
// from its leader for --election-timeout) and no conf-change.
var Actions = []schedule.Action{schedule.Deliver, schedule.Crash, schedule.Restart, schedule.Request,
	schedule.Drop, schedule.Duplicate, schedule.DeliverOne, schedule.Partition, schedule.Heal,
	schedule.TransferLeader, schedule.Read, schedule.Tick}

// NewFactory checks cfg and returns its factory; it first kills the
// members and removes the directories that fuzzers killed before they
// could clean up left in the state directory.
func NewFactory(cfg Config, opts Options) (*Factory, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if st, err := os.Stat(cfg.Binary); err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
		return nil, fmt.Errorf("etcd: %s is not an executable file", cfg.Binary)
	}
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	if opts.StateDir == "" {
		opts.StateDir = DefaultStateDir()
	}
	if opts.OutputLimit <= 0 {
		opts.OutputLimit = 64 << 10
	}
	reg, err := osproc.OpenRegistry(opts.StateDir)
	if err != nil {
		return nil, err
	}
	raw, _ := json.Marshal(cfg)
	names := make([]string, cfg.Nodes)
	for p := range names {
		names[p] = "n" + strconv.Itoa(p+1)
	}
	spec := &schedule.SystemSpec{Name: "etcd", Processes: cfg.Nodes, Actions: Actions, ProcessNames: names,
		ProcessArgs: []string{schedule.ArgVote}}
	return &Factory{cfg: cfg, opts: opts, reg: reg, spec: spec, raw: raw, systems: map[*System]bool{}}, nil
}

// FactoryFromConfig rebuilds a factory from Factory.Config.
func FactoryFromConfig(raw json.RawMessage, opts Options) (*Factory, error) {
	var cfg Config
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return nil, fmt.Errorf("etcd: stored configuration: %w", err)
	}
	if _, err := os.Stat(cfg.Binary); err != nil && cfg.Module != "" {
		// A module build whose cache was emptied: build it again.
		if cfg.Binary, err = BuildModule(cfg.Module, opts.logger()); err != nil {
			return nil, err
		}
	}
	v, err := ServerVersion(cfg.Binary)
	if err != nil {
		return nil, err
	}
	if v != cfg.ServerVersion {
		return nil, fmt.Errorf("etcd: %s is etcd %s now; the campaign ran %s (give the same binary, or start a new campaign)", cfg.Binary, v, cfg.ServerVersion)
	}
	return NewFactory(cfg, opts)
}

// Cfg is the factory's configuration.
func (f *Factory) Cfg() Config { return f.cfg }

// Spec implements schedule.Factory.
func (f *Factory) Spec() *schedule.SystemSpec { return f.spec }

// Config implements schedule.Factory.
func (f *Factory) Config() json.RawMessage { return f.raw }

// New implements schedule.Factory.
func (f *Factory) New() (schedule.System, error) { return f.NewSystem() }

// NewSystem is New with the concrete type.
func (f *Factory) NewSystem() (*System, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil, errors.New("etcd: New on a closed factory")
	}
	dir, err := f.reg.NewRunDir()
	if err != nil {
		return nil, err
	}
	s := &System{fac: f, cfg: f.cfg, spec: f.spec, log: f.opts.Logger.Named("etcd"), runDir: dir}
	f.systems[s] = true
	return s, nil
}

// Close closes every System the factory made and releases the state
// directory.
func (f *Factory) Close() error {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return nil
	}
	f.closed = true
	var systems []*System
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

// ServerVersion runs `binary --version` and returns the server's version
// ("3.4.23").
func ServerVersion(binary string) (string, error) {
	if st, err := os.Stat(binary); err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
		return "", fmt.Errorf("etcd: %s is not an executable file", binary)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, binary, "--version").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("etcd: %s --version: %v", binary, err)
	}
	m := versionLine.FindSubmatch(out)
	if m == nil {
		return "", fmt.Errorf("etcd: %s --version says no etcd version: %q", binary, firstLine(string(out)))
	}
	return string(m[1]), nil
}

var versionLine = regexp.MustCompile(`etcd Version: (\S+)`)

// ResolveBinary finds the etcd to run: binary if given, else one built
// from the module proxy at moduleVersion if given (BuildModule), else
// Debian's /usr/bin/etcd, else etcd on PATH.
func ResolveBinary(binary, moduleVersion string, logger hclog.Logger) (path, module string, err error) {
	switch {
	case binary != "" && moduleVersion != "":
		return "", "", errors.New("etcd: give --etcd-binary or --etcd-version, not both")
	case binary != "":
		p, err := filepath.Abs(binary)
		return p, "", err
	case moduleVersion != "":
		p, err := BuildModule(moduleVersion, logger)
		return p, moduleVersion, err
	}
	if st, err := os.Stat(DebianBinary); err == nil && !st.IsDir() {
		return DebianBinary, "", nil
	}
	if p, err := exec.LookPath("etcd"); err == nil {
		p, err = filepath.Abs(p)
		return p, "", err
	}
	return "", "", errors.New("etcd: no etcd binary: install Debian's etcd-server (apt-get install etcd-server), or give --etcd-binary PATH or --etcd-version v3.6.16")
}

var moduleVersion = regexp.MustCompile(`^v3\.(\d+)\.(\d+)(-[0-9A-Za-z.]+)?$`)

// CacheDir is where module-built etcd binaries are kept:
// $XDG_CACHE_HOME/modelfuzz/etcd (or ~/.cache/...), unless
// MODELFUZZ_ETCD_CACHE names another directory.
func CacheDir() (string, error) {
	if d := os.Getenv("MODELFUZZ_ETCD_CACHE"); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "modelfuzz", "etcd"), nil
}

// buildMu keeps two builds in this process from racing.
var buildMu sync.Mutex

// BuildModule builds etcd's server at a released version of
// go.etcd.io/etcd/server/v3 (3.5.0 and later: the module exists from
// there) into the cache directory, once: a three-line main calling
// etcdmain.Main, built with the go command from the module proxy.
func BuildModule(version string, logger hclog.Logger) (string, error) {
	m := moduleVersion.FindStringSubmatch(version)
	if m == nil {
		return "", fmt.Errorf("etcd: --etcd-version %q: want a release of go.etcd.io/etcd/server/v3 such as v3.6.16", version)
	}
	if minor, _ := strconv.Atoi(m[1]); minor < 5 {
		return "", fmt.Errorf("etcd: --etcd-version %s: go.etcd.io/etcd/server/v3 exists from v3.5.0 on; for 3.4 use Debian's etcd-server (--etcd-binary /usr/bin/etcd)", version)
	}
	cache, err := CacheDir()
	if err != nil {
		return "", err
	}
	dst := filepath.Join(cache, version, "etcd")
	buildMu.Lock()
	defer buildMu.Unlock()
	if st, err := os.Stat(dst); err == nil && st.Mode()&0o111 != 0 {
		return dst, nil
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("etcd: building etcd %s needs the go command: %w", version, err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dst), "build-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	main := "package main\n\nimport (\n\t\"os\"\n\n\t\"go.etcd.io/etcd/server/v3/etcdmain\"\n)\n\nfunc main() { etcdmain.Main(os.Args) }\n"
	if err := os.WriteFile(filepath.Join(tmp, "main.go"), []byte(main), 0o644); err != nil {
		return "", err
	}
	logger.Info("building etcd from the module proxy (once; cached)", "version", version, "into", dst)
	run := func(args ...string) error {
		cmd := exec.Command(goBin, args...)
		cmd.Dir = tmp
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "CGO_ENABLED=0")
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("etcd: building %s: go %s: %v\n%s", version, strings.Join(args, " "), err, lastLines(string(out), 10))
		}
		return nil
	}
	if err := run("mod", "init", "modelfuzz.local/etcd"); err != nil {
		return "", err
	}
	if err := run("get", "go.etcd.io/etcd/server/v3@"+version); err != nil {
		return "", err
	}
	if err := run("mod", "tidy"); err != nil {
		return "", err
	}
	if err := run("build", "-trimpath", "-o", filepath.Join(tmp, "etcd"), "."); err != nil {
		return "", err
	}
	if err := os.Rename(filepath.Join(tmp, "etcd"), dst); err != nil {
		return "", err
	}
	return dst, nil
}
