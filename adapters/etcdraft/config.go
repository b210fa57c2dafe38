package etcdraft

import (
	"encoding/json"
	"fmt"
	"github.com/modelfuzz/modelfuzz/internal/jsonerr"
	"slices"
	"strconv"
	"strings"

	"go.etcd.io/raft/v3"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// The seeded application bugs (Config.Inject).
const (
	InjectForgetHardState       = "forget-hardstate"
	InjectSendBeforePersist     = "send-before-persist"
	InjectApplyUncommitted      = "apply-uncommitted"
	InjectDropSnapshotOnRestart = "drop-snapshot-on-restart"
	// Bugs that only a crash inside the handling of a Ready exposes (a
	// crash step with a point): correct without such a crash.
	InjectSendThenPersist   = "send-then-persist"
	InjectAppliedIndexFirst = "applied-index-first"
	// InjectUncheckedConf applies every committed configuration change
	// without trying it first: the library panics on one it cannot take,
	// inside raft.Node's own goroutine at the nodes that run through it.
	InjectUncheckedConf = "unchecked-conf"
)

var injections = []string{InjectForgetHardState, InjectSendBeforePersist, InjectApplyUncommitted, InjectDropSnapshotOnRestart,
	InjectSendThenPersist, InjectAppliedIndexFirst, InjectUncheckedConf}

// The ways to drive a node (Config.API) and to start a cluster
// (Config.Bootstrap).
const (
	APIRawNode        = "rawnode"
	APINode           = "node"
	APIMixed          = "mixed"
	BootstrapSnapshot = "snapshot"
	BootstrapLog      = "log"
)

// The read protocols (Config.ReadOnly).
const (
	ReadSafe  = "safe"  // ReadIndex: a heartbeat round confirms leadership
	ReadLease = "lease" // lease-based: the leader answers from its CheckQuorum lease
	ReadMixed = "mixed" // odd node IDs lease-based, even ones ReadIndex
)

// Config configures the cluster. The zero values of the fields added after
// the first release mean the behaviour of that release, so that stored
// campaigns rebuild the same system.
type Config struct {
	Nodes int `json:"nodes"` // voters of the bootstrap configuration
	// Spares are processes outside the bootstrap configuration, with empty
	// storage, that conf-change steps can add (processes Nodes..Nodes+Spares-1).
	Spares        int  `json:"spares,omitempty"`
	SnapshotEvery int  `json:"snapshot_every"` // applied entries between snapshots
	PreVote       bool `json:"prevote,omitempty"`
	CheckQuorum   bool `json:"checkquorum,omitempty"`
	// AsyncStorageWrites chooses the Ready loop per node: "" or "off"
	// (synchronous), "on" (the library's AsyncStorageWrites), "mixed"
	// (asynchronous at odd node IDs).
	AsyncStorageWrites string `json:"async_storage_writes,omitempty"`
	// MaxUncommittedSize is the library's MaxUncommittedEntriesSize: a
	// leader drops proposals beyond that many bytes of uncommitted
	// entries; 0 means no limit.
	MaxUncommittedSize uint64 `json:"max_uncommitted_size,omitempty"`
	// StepDownOnRemoval: a leader removed from the configuration steps down.
	StepDownOnRemoval bool `json:"step_down_on_removal,omitempty"`
	// MaxInflightMsgs and MaxSizePerMsg are the library's flow control;
	// 0 means 256 and 1 MiB.
	MaxInflightMsgs int    `json:"max_inflight_msgs,omitempty"`
	MaxSizePerMsg   uint64 `json:"max_size_per_msg,omitempty"`
	// ElectionTick is the library's election timeout in ticks; 0 means
	// 1<<30 (leases never expire). Elections still happen only at timeout
	// steps (see the package documentation).
	ElectionTick int `json:"election_tick,omitempty"`
	// HeartbeatTick is the library's heartbeat interval in ticks; 0 means 1.
	HeartbeatTick int `json:"heartbeat_tick,omitempty"`
	// ReadOnly is the read protocol of read steps: ReadSafe (or ""),
	// ReadLease or ReadMixed; lease reads need CheckQuorum.
	ReadOnly string `json:"read_only,omitempty"`
	// API is how the application drives each node: "" or "rawnode"
	// (raft.RawNode), "node" (the goroutine API raft.Node, as etcd's server
	// does), "mixed" (raft.Node at node IDs 2, 3, 6 and 7, so that with
	// mixed AsyncStorageWrites the four combinations run).
	API string `json:"api,omitempty"`
	// Bootstrap is how a fresh cluster starts: "" or "snapshot" (every
	// voter's storage holds a snapshot of the configuration at index 1),
	// "log" (the library's bootstrap: StartNode or RawNode.Bootstrap append
	// one configuration change per voter at indexes 1..Nodes).
	Bootstrap string `json:"bootstrap,omitempty"`
	// SpecTrace records the library's own TLA+ trace events (its
	// TracingEvents, for Traceetcdraft.tla) into each execution; it needs
	// a build with the with_tla tag (SpecTraceBuilt).
	SpecTrace bool   `json:"spec_trace,omitempty"`
	Inject    string `json:"inject,omitempty"`
}

// NeverSnapshot is a SnapshotEvery that no execution reaches: the log is
// never compacted.
const NeverSnapshot = 1 << 30

// MaxProcesses bounds Nodes+Spares (schedule.ProcSet holds 16; clusters of
// more than 7 only slow the fuzzer down).
const MaxProcesses = 7

// DefaultConfig is the configuration of the command line's defaults: the
// settings that exercise most of the library (docs/etcdraft.md).
func DefaultConfig() Config {
	return Config{Nodes: 3, Spares: 1, SnapshotEvery: 3, PreVote: true, CheckQuorum: true,
		MaxInflightMsgs: 2, MaxSizePerMsg: 1, ElectionTick: 30, HeartbeatTick: 5, ReadOnly: ReadSafe,
		AsyncStorageWrites: "mixed", MaxUncommittedSize: 64, StepDownOnRemoval: true, API: APIMixed, Bootstrap: BootstrapLog}
}

// ClassicConfig is the configuration of the first release's defaults: no
// spares, PreVote and CheckQuorum off, flow control out of the way, leases
// that never expire (the tests of that behaviour use it).
func ClassicConfig() Config { return Config{Nodes: 3, SnapshotEvery: 3} }

// Validate checks the configuration.
func (c Config) Validate() error {
	switch {
	case c.Nodes < 1:
		return fmt.Errorf("etcdraft: --nodes must be at least 1, got %d", c.Nodes)
	case c.Spares < 0:
		return fmt.Errorf("etcdraft: --spares must not be negative, got %d", c.Spares)
	case c.Nodes+c.Spares > MaxProcesses:
		return fmt.Errorf("etcdraft: --nodes plus --spares is at most %d, got %d", MaxProcesses, c.Nodes+c.Spares)
	case c.SnapshotEvery < 1:
		return fmt.Errorf("etcdraft: --snapshot-every must be at least 1, got %d", c.SnapshotEvery)
	case c.MaxInflightMsgs < 0:
		return fmt.Errorf("etcdraft: --max-inflight must not be negative, got %d", c.MaxInflightMsgs)
	case c.ElectionTick < 0 || c.ElectionTick == 1:
		return fmt.Errorf("etcdraft: --election-tick must be at least 2 (0: never), got %d", c.ElectionTick)
	case c.HeartbeatTick < 0 || c.HeartbeatTick >= c.electionTick():
		return fmt.Errorf("etcdraft: --heartbeat-tick must be at least 1 and below --election-tick (%d), got %d", c.electionTick(), c.HeartbeatTick)
	}
	switch c.AsyncStorageWrites {
	case "", "off", "on", "mixed":
	default:
		return fmt.Errorf("etcdraft: unknown --async-storage-writes %q (known: off, on, mixed)", c.AsyncStorageWrites)
	}
	switch c.ReadOnly {
	case "", ReadSafe:
	case ReadLease, ReadMixed:
		if !c.CheckQuorum {
			return fmt.Errorf("etcdraft: --read-only %s needs --checkquorum (the library refuses lease reads without it)", c.ReadOnly)
		}
	default:
		return fmt.Errorf("etcdraft: unknown --read-only %q (known: safe, lease, mixed)", c.ReadOnly)
	}
	switch c.API {
	case "", APIRawNode, APINode, APIMixed:
	default:
		return fmt.Errorf("etcdraft: unknown --api %q (known: rawnode, node, mixed)", c.API)
	}
	switch c.Bootstrap {
	case "", BootstrapSnapshot, BootstrapLog:
	default:
		return fmt.Errorf("etcdraft: unknown --bootstrap %q (known: snapshot, log)", c.Bootstrap)
	}
	if c.SpecTrace && !SpecTraceBuilt {
		return fmt.Errorf("etcdraft: recording the library's TLA+ trace needs its trace points, which this modelfuzz was built without: build with -tags with_tla (make build does)")
	}
	if c.Inject != "" && !slices.Contains(injections, c.Inject) {
		return fmt.Errorf("etcdraft: unknown --inject %q (known: %s)", c.Inject, strings.Join(injections, ", "))
	}
	return nil
}

func (c Config) electionTick() int {
	if c.ElectionTick == 0 {
		return 1 << 30
	}
	return c.ElectionTick
}

func (c Config) heartbeatTick() int { return max(c.HeartbeatTick, 1) }

func (c Config) maxInflight() int {
	if c.MaxInflightMsgs == 0 {
		return 256
	}
	return c.MaxInflightMsgs
}

func (c Config) maxSize() uint64 {
	if c.MaxSizePerMsg == 0 {
		return 1 << 20
	}
	return c.MaxSizePerMsg
}

// async reports whether node id runs the asynchronous Ready loop.
func (c Config) async(id uint64) bool {
	return c.AsyncStorageWrites == "on" || c.AsyncStorageWrites == "mixed" && id%2 == 1
}

// readOnly is node id's read protocol.
func (c Config) readOnly(id uint64) raft.ReadOnlyOption {
	if c.ReadOnly == ReadLease || c.ReadOnly == ReadMixed && id%2 == 1 {
		return raft.ReadOnlyLeaseBased
	}
	return raft.ReadOnlySafe
}

// goAPI reports whether node id runs through the raft.Node API.
func (c Config) goAPI(id uint64) bool {
	return c.API == APINode || c.API == APIMixed && (id/2)%2 == 1
}

// Factory makes etcdraft clusters.
type Factory struct {
	cfg  Config
	spec *schedule.SystemSpec
}

// NewFactory validates cfg and returns a factory.
func NewFactory(cfg Config) (*Factory, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if _, err := inflightLayout(); err != nil {
		return nil, err
	}
	if _, err := trackerLayout(); err != nil {
		return nil, err
	}
	if cfg.API == APINode || cfg.API == APIMixed {
		if err := learnNodeType(); err != nil {
			return nil, err
		}
	}
	// The first release's ways are stored as unset, so that campaigns it
	// stored compare equal.
	if cfg.API == APIRawNode {
		cfg.API = ""
	}
	if cfg.Bootstrap == BootstrapSnapshot {
		cfg.Bootstrap = ""
	}
	names := make([]string, cfg.Nodes+cfg.Spares)
	for p := range names {
		names[p] = "n" + strconv.Itoa(p+1)
	}
	return &Factory{cfg: cfg, spec: &schedule.SystemSpec{
		Name:         "etcdraft",
		Processes:    len(names),
		Actions:      schedule.AllActions,
		CrashPoints:  schedule.CrashPoints,
		ProcessNames: names,
		ProcessArgs:  []string{schedule.ArgVote},
	}}, nil
}

// FactoryFromConfig decodes a stored configuration.
func FactoryFromConfig(raw json.RawMessage) (*Factory, error) {
	var c Config
	if err := jsonerr.Decode(raw, &c); err != nil {
		return nil, fmt.Errorf("etcdraft: bad configuration %s: %v", jsonerr.Compact(raw), err)
	}
	return NewFactory(c)
}

// Spec implements schedule.Factory.
func (f *Factory) Spec() *schedule.SystemSpec { return f.spec }

// Cfg returns the system's configuration.
func (f *Factory) Cfg() Config { return f.cfg }

// Config implements schedule.Factory.
func (f *Factory) Config() json.RawMessage {
	b, _ := json.Marshal(f.cfg)
	return b
}

// New implements schedule.Factory.
func (f *Factory) New() (schedule.System, error) {
	return &System{cfg: f.cfg, spec: f.spec}, nil
}
