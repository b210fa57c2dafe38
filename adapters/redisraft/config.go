package redisraft

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// Config is a RedisRaft cluster: its binaries, its size and the module's
// settings. It is stored with a campaign; FactoryFromConfig rebuilds the
// same cluster from it.
type Config struct {
	Nodes int `json:"nodes"` // voters, node ids 1..Nodes (process p is node p+1)
	// RedisServer and Module are the redis-server binary and redisraft.so.
	RedisServer string `json:"redis_server"`
	Module      string `json:"module"`

	// The module's timers, in milliseconds (its raft.* settings of the
	// same names). ElectionTimeout and RequestTimeout 0 mean that the
	// timers never fire by themselves: elections start at timeout steps
	// (RAFT.TIMEOUT_NOW), heartbeats at tick steps. Set, they run in real
	// time, as in production, and a schedule no longer decides when a
	// node campaigns or a leader sends heartbeats.
	ElectionTimeout   int `json:"election_timeout"`
	RequestTimeout    int `json:"request_timeout"`
	PeriodicInterval  int `json:"periodic_interval"`  // how often raft_periodic runs
	ReconnectInterval int `json:"reconnect_interval"` // between attempts to reach a peer
	// LogMaxFileSize is the size of the log file (bytes) past which a node
	// compacts its log into a snapshot (raft.log-max-file-size).
	LogMaxFileSize int `json:"log_max_file_size"`
	// QuorumReads: reads are confirmed by a quorum (raft.quorum-reads).
	QuorumReads bool `json:"quorum_reads"`
	// FollowerProxy: followers forward client commands to their leader
	// over the node-to-node connection (raft.follower-proxy); without it
	// they answer MOVED and the client goes to the leader.
	FollowerProxy bool `json:"follower_proxy"`
	// Keys is how many keys client requests use.
	Keys int `json:"keys"`
	// Start is how an execution's cluster comes to be: StartTemplate
	// (stored as "") restarts a copy of a cluster formed once per
	// System; StartForm forms it inside the execution, RAFT.CLUSTER INIT
	// at node 1 and JOIN at the others through the proxies, so that the
	// joins' messages are scheduled like any other.
	Start string `json:"start,omitempty"`
	// CoverModule, when set, is a coverage build of redisraft.so that the
	// nodes load instead of Module, so that every execution records the
	// lines of C it ran (cover.go; --strategy line).
	CoverModule string `json:"cover_module,omitempty"`
}

// never is what a timer that "never" fires is set to: a day, in
// milliseconds (the module refuses 0).
const never = 24 * 60 * 60 * 1000

// The ways an execution's cluster starts (Config.Start).
const (
	StartTemplate = "template"
	StartForm     = "form"
)

// forming reports whether executions form their cluster.
func (c *Config) forming() bool { return c.Start == StartForm }

// FormSteps and FormActions are the default input shape of a campaign on
// a cluster formed in every execution: forming takes about a dozen
// deliveries in order and n1's heartbeats (tick steps), which random
// inputs of 50 steps over every action rarely give, and model coverage
// counts from the formed cluster on (docs/redisraft.md). Drops,
// duplicates, partitions and transfers are still there when asked for.
const FormSteps = 100

// FormActions: see FormSteps.
var FormActions = []schedule.Action{schedule.Deliver, schedule.Tick, schedule.Request, schedule.Timeout, schedule.Crash, schedule.Restart}

// DefaultConfig is the cluster a campaign runs unless told otherwise.
func DefaultConfig() Config {
	return Config{
		Nodes:             3,
		PeriodicInterval:  10,
		ReconnectInterval: 10,
		LogMaxFileSize:    4096,
		QuorumReads:       true,
		Keys:              2,
	}
}

// Validate checks the settings; every problem is reported, one per line.
func (c *Config) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if c.Nodes < 1 || c.Nodes > 7 {
		bad("redisraft: --nodes must be 1..7, got %d", c.Nodes)
	}
	if c.RedisServer == "" || c.Module == "" {
		bad("redisraft: the paths of redis-server and redisraft.so are not set")
	}
	for _, t := range []struct {
		name string
		v    int
		zero bool // 0 allowed (never)
	}{
		{"--election-timeout", c.ElectionTimeout, true},
		{"--request-timeout", c.RequestTimeout, true},
		{"--periodic-interval", c.PeriodicInterval, false},
		{"--reconnect-interval", c.ReconnectInterval, false},
	} {
		if t.v < 0 || (!t.zero && t.v == 0) || t.v > never {
			bad("redisraft: %s must be 1..%d ms%s, got %d", t.name, never, map[bool]string{true: " (or 0: never by itself)"}[t.zero], t.v)
		}
	}
	if c.LogMaxFileSize < 512 {
		bad("redisraft: --log-max-file-size must be at least 512 bytes, got %d", c.LogMaxFileSize)
	}
	if c.Start != "" && c.Start != StartTemplate && c.Start != StartForm {
		bad("redisraft: --redisraft-start must be %s or %s, got %q", StartTemplate, StartForm, c.Start)
	}
	if c.Keys < 1 {
		bad("redisraft: --keys must be at least 1, got %d", c.Keys)
	}
	return errors.Join(errs...)
}

func orNever(ms int) int {
	if ms == 0 {
		return never
	}
	return ms
}

// moduleArgs are the module's settings on redis-server's command line
// for node p, advertising addr.
func (c *Config) moduleArgs(p int, addr string) []string {
	yesno := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	return []string{
		"--raft.id", strconv.Itoa(p + 1),
		"--raft.addr", addr,
		"--raft.log-filename", "raftlog.db",
		// Writes reach the page cache, which a SIGKILL of the process
		// does not lose (RedisRaft's Deployment.md); no fsync thread
		// whose timing would decide when an entry counts as written.
		"--raft.log-fsync", "no",
		"--raft.election-timeout", strconv.Itoa(orNever(c.ElectionTimeout)),
		"--raft.request-timeout", strconv.Itoa(orNever(c.RequestTimeout)),
		"--raft.periodic-interval", strconv.Itoa(c.PeriodicInterval),
		"--raft.reconnect-interval", strconv.Itoa(c.ReconnectInterval),
		// A reply held by the fuzzer is not a dead peer: connections are
		// broken by drop steps, not by a clock.
		"--raft.response-timeout", strconv.Itoa(never),
		"--raft.proxy-response-timeout", strconv.Itoa(never),
		"--raft.log-max-file-size", strconv.Itoa(c.LogMaxFileSize),
		"--raft.quorum-reads", yesno(c.QuorumReads),
		"--raft.follower-proxy", yesno(c.FollowerProxy),
	}
}

// module is the redisraft.so the nodes load.
func (c *Config) module() string {
	if c.CoverModule != "" {
		return c.CoverModule
	}
	return c.Module
}

// configJSON is the stored form.
func (c *Config) configJSON() json.RawMessage {
	b, _ := json.Marshal(c)
	return b
}
