package process

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/modelfuzz/modelfuzz/internal/jsonerr"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// Cluster is the content of a cluster file: how to start the replicas and
// talk to them. The package comment describes every field.
type Cluster struct {
	Name      string            `json:"name"`
	Processes int               `json:"processes"`
	Command   string            `json:"command"`
	Args      []string          `json:"args,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
	Workdir   string            `json:"workdir,omitempty"`
	DataDir   string            `json:"data_dir,omitempty"`
	Ready     Ready             `json:"ready"`
	Client    string            `json:"client,omitempty"`
	// Quiet is how long a step waits for stragglers: it ends when no
	// message, event or registration arrived for Quiet.
	Quiet string `json:"quiet,omitempty"`
	// CallTimeout bounds each call of the fuzzer to a replica (a delivery,
	// a timeout): a replica that does not answer is unresponsive.
	CallTimeout string       `json:"call_timeout,omitempty"`
	Request     *RequestSpec `json:"request,omitempty"`
	// Dir is the directory relative paths are resolved against: the
	// cluster file's directory unless the file sets it.
	Dir string `json:"dir,omitempty"`

	// The durations, parsed.
	quiet, callTimeout, readyTimeout, reqTimeout, drain time.Duration
}

// Ready says when a started replica is ready for the schedule.
type Ready struct {
	// Register (default true): the replica is ready when it registers with
	// "ready": true. False: when its client endpoint accepts connections
	// (for systems that are not instrumented: crash, restart and request
	// only).
	Register *bool  `json:"register,omitempty"`
	Timeout  string `json:"timeout,omitempty"` // default "5s"
}

// RequestSpec describes the client requests of request steps.
type RequestSpec struct {
	Kind string `json:"kind"` // "kv"
	Keys int    `json:"keys"`
	// Timeout bounds each client request; an unanswered request has an
	// unknown outcome.
	Timeout string `json:"timeout,omitempty"` // default "2s"
	// Drain is how long the end of an execution waits for outstanding
	// requests before it cancels them (default: quiet).
	Drain string `json:"drain,omitempty"`
}

// Defaults of the optional fields.
const (
	defaultQuiet        = 20 * time.Millisecond
	defaultReadyTimeout = 5 * time.Second
	defaultCallTimeout  = 5 * time.Second
	defaultReqTimeout   = 2 * time.Second
	defaultKeys         = 2
	maxProcesses        = 64
)

// Placeholders the templates may use, and where.
var (
	placeholderRE = regexp.MustCompile(`\{[a-z_]+\}`)
	processVars   = []string{"{id}", "{index}", "{port}", "{client_port}", "{data}", "{cluster}", "{processes}"}
	dataDirVars   = []string{"{id}", "{index}"}
)

// maxClusterBytes is the largest cluster file read.
const maxClusterBytes = 1 << 20

// LoadCluster reads and validates a cluster file. Relative paths in it are
// resolved against the file's directory (unless it sets "dir"). The command
// is not looked up: NewFactory does that.
func LoadCluster(path string) (*Cluster, error) {
	data, err := jsonerr.ReadFile(path, maxClusterBytes, "a cluster file", "process.maxClusterBytes: 1 MiB")
	if err != nil {
		return nil, fmt.Errorf("cluster file %w", err)
	}
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("cluster file %s: %w", path, err)
	}
	c, err := ParseCluster(data, dir)
	if err != nil {
		return nil, fmt.Errorf("cluster file %s: %w", path, err)
	}
	return c, nil
}

// ParseCluster parses and validates the content of a cluster file. dir is
// the directory relative paths are resolved against when the content does
// not set "dir". Every problem found is reported, one per line.
func ParseCluster(data []byte, dir string) (*Cluster, error) {
	c := &Cluster{}
	if e := jsonerr.Check(data); e != nil {
		if e.Line == 0 {
			return nil, errors.New("empty file")
		}
		return nil, fmt.Errorf("line %d, column %d: %s", e.Line, e.Col, e.Msg)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(c); err != nil {
		return nil, jsonError(data, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after the JSON object")
	}
	if c.Dir == "" {
		c.Dir = dir
	}
	c.setDefaults()
	if err := c.validate(); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *Cluster) setDefaults() {
	if c.DataDir == "" {
		c.DataDir = "{id}"
	}
	if c.Workdir == "" {
		c.Workdir = "{data}"
	}
	if c.Ready.Register == nil {
		c.Ready.Register = new(true)
	}
	if c.Quiet == "" {
		c.Quiet = defaultQuiet.String()
	}
	if c.Ready.Timeout == "" {
		c.Ready.Timeout = defaultReadyTimeout.String()
	}
	if c.CallTimeout == "" {
		c.CallTimeout = defaultCallTimeout.String()
	}
	if r := c.Request; r != nil {
		if r.Keys == 0 {
			r.Keys = defaultKeys
		}
		if r.Timeout == "" {
			r.Timeout = defaultReqTimeout.String()
		}
	}
}

// validate collects every problem of the configuration.
func (c *Cluster) validate() error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", field, fmt.Sprintf(format, args...)))
	}
	checkVars := func(field, s string, allowed []string) {
		for _, p := range placeholderRE.FindAllString(s, -1) {
			if !slices.Contains(allowed, p) {
				bad(field, "unknown placeholder %s (known: %s)", p, strings.Join(allowed, " "))
			}
		}
	}
	if c.Name == "" {
		bad("name", "missing (a name for the system, e.g. \"raftkv\")")
	}
	if c.Processes < 1 || c.Processes > maxProcesses {
		bad("processes", "must be 1..%d, got %d", maxProcesses, c.Processes)
	}
	if strings.TrimSpace(c.Command) == "" {
		bad("command", "missing (the replica's executable)")
	}
	checkVars("command", c.Command, nil)
	for i, a := range c.Args {
		checkVars(fmt.Sprintf("args[%d]", i), a, processVars)
	}
	for _, k := range slices.Sorted(maps.Keys(c.Env)) {
		switch {
		case k == "" || strings.ContainsAny(k, "= \t\n"):
			bad("env", "bad variable name %q", k)
		case k == "MODELFUZZ_URL" || k == "MODELFUZZ_ID":
			bad("env", "%s is set by the fuzzer", k)
		}
		checkVars("env."+k, c.Env[k], processVars)
	}
	checkVars("workdir", c.Workdir, processVars)
	checkVars("data_dir", c.DataDir, dataDirVars)
	if filepath.IsAbs(c.DataDir) || !filepath.IsLocal(strings.NewReplacer("{id}", "1", "{index}", "0").Replace(c.DataDir)) {
		bad("data_dir", "must be a relative path inside the execution's directory, got %q", c.DataDir)
	} else if c.Processes > 1 && !strings.Contains(c.DataDir, "{id}") && !strings.Contains(c.DataDir, "{index}") {
		bad("data_dir", "%q gives every process the same directory: use {id} or {index}", c.DataDir)
	}
	duration := func(field, s string, positive bool) time.Duration {
		d, err := time.ParseDuration(s)
		switch {
		case err != nil:
			bad(field, "bad duration %q: want a number with a unit, such as \"20ms\"", s)
		case positive && d <= 0:
			bad(field, "must be positive, got %q", s)
		case d < 0:
			bad(field, "must not be negative, got %q", s)
		}
		return d
	}
	c.readyTimeout = duration("ready.timeout", c.Ready.Timeout, true)
	c.quiet = duration("quiet", c.Quiet, false)
	c.callTimeout = duration("call_timeout", c.CallTimeout, true)
	c.drain = c.quiet
	if c.Client != "" {
		checkVars("client", c.Client, processVars)
		if !strings.HasPrefix(c.Client, "http://") && !strings.HasPrefix(c.Client, "https://") {
			bad("client", "must be an http:// URL template, got %q", c.Client)
		}
	}
	if !*c.Ready.Register && c.Client == "" {
		bad("ready.register", "false needs \"client\": without registration a replica is ready when its client endpoint accepts connections")
	}
	if r := c.Request; r != nil {
		if r.Kind != "kv" {
			bad("request.kind", "unknown kind %q (known: kv)", r.Kind)
		}
		if r.Keys < 1 {
			bad("request.keys", "must be at least 1, got %d", r.Keys)
		}
		c.reqTimeout = duration("request.timeout", r.Timeout, true)
		if r.Drain != "" {
			c.drain = duration("request.drain", r.Drain, false)
		}
		if c.Client == "" {
			bad("request", "needs \"client\", the replicas' client endpoint")
		}
	}
	return errors.Join(errs...)
}

// register reports whether replicas register with the fuzzer.
func (c *Cluster) register() bool { return *c.Ready.Register }

// resolveCommand finds the executable: an absolute path as it is, a path
// with a separator relative to Dir, a bare name in Dir or else on PATH.
func (c *Cluster) resolveCommand() (string, error) {
	cmd := c.Command
	if filepath.IsAbs(cmd) {
		return cmd, checkExecutable(cmd)
	}
	if strings.ContainsRune(cmd, filepath.Separator) {
		p := filepath.Join(c.Dir, cmd)
		return p, checkExecutable(p)
	}
	if p := filepath.Join(c.Dir, cmd); checkExecutable(p) == nil {
		return p, nil
	}
	p, err := exec.LookPath(cmd)
	if err != nil {
		return "", fmt.Errorf("command %q: not found in %s or on PATH", cmd, c.Dir)
	}
	return p, nil
}

func checkExecutable(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return fmt.Errorf("command: %w", err)
	}
	if fi.IsDir() || fi.Mode()&0o111 == 0 {
		return fmt.Errorf("command %s: not an executable file", p)
	}
	return nil
}

// procVars are the placeholder values of one process of one execution.
type procVars struct {
	index, port, clientPort int
	data, cluster           string
	processes               int
}

func (c *Cluster) expand(s string, v procVars) string {
	if !strings.Contains(s, "{") {
		return s
	}
	return strings.NewReplacer(
		"{id}", strconv.Itoa(v.index+1),
		"{index}", strconv.Itoa(v.index),
		"{port}", strconv.Itoa(v.port),
		"{client_port}", strconv.Itoa(v.clientPort),
		"{data}", v.data,
		"{cluster}", v.cluster,
		"{processes}", strconv.Itoa(v.processes),
	).Replace(s)
}

// resolvePath makes p absolute against Dir.
func (c *Cluster) resolvePath(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(c.Dir, p)
}

// jsonError adds a line and column to encoding/json's errors.
func jsonError(data []byte, err error) error {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
		if te.Field != "" {
			err = fmt.Errorf("%s: want %v, got a JSON %s", te.Field, te.Type, te.Value)
		}
	case err == io.EOF:
		return errors.New("empty file")
	}
	if se != nil || te == nil {
		// Syntax, a document cut short, a field it does not know: in
		// the words every JSON file of ours gets.
		e := jsonerr.Describe(data, err)
		if e.Line == 0 {
			return errors.New(e.Msg)
		}
		return fmt.Errorf("line %d, column %d: %s", e.Line, e.Col, e.Msg)
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if off < 0 {
		return errors.New(msg)
	}
	line, col := schedule.LineColumn(data, off)
	return fmt.Errorf("line %d, column %d: %s", line, col, msg)
}
