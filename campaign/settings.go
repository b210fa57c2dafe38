package campaign

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/modelfuzz/modelfuzz/internal/cmdline"
	"maps"
	"net/url"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/modelfuzz/modelfuzz/fuzzer"
	"github.com/modelfuzz/modelfuzz/guidance"
	"github.com/modelfuzz/modelfuzz/internal/buildinfo"
	"github.com/modelfuzz/modelfuzz/models"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// SettingsVersion is the version of the stored settings' encoding.
const SettingsVersion = 2

// Settings are everything a campaign is run with, declared once: the CLI
// fills them, the stored part (every field with a JSON name) goes into the
// corpus when the campaign starts, and a continued campaign must have the
// same stored settings (Diff). The rest says how this session runs.
type Settings struct {
	Version       int             `json:"version"`
	Adapter       string          `json:"adapter" flag:"adapter"`
	AdapterConfig json.RawMessage `json:"adapter_config"`
	Strategy      string          `json:"strategy" flag:"strategy"`
	fuzzer.Params
	schedule.Shape
	guidance.OnlineParams
	Model       string   `json:"model,omitempty" flag:"model"`               // the model guiding or measuring the campaign
	ModelConfig string   `json:"model_config,omitempty" flag:"model-config"` // its cfg when not the default
	ModelConsts []string `json:"model_consts,omitempty"`                     // its constants set from the system
	// ReferenceViews are definitions of the model measured as further
	// abstractions beside the cfg's VIEW (comma-separated), so strategies
	// can be compared on one abstraction whatever guides them.
	ReferenceViews string `json:"reference_views,omitempty" flag:"reference-view"`
	// Waypoints is a module of TLA+ predicates over the model's variables,
	// FILE.tla[:DEF]: the sequence waypointrl learns to pass, and that the
	// other learning strategies are measured on.
	Waypoints string `json:"waypoints,omitempty" flag:"waypoints"`
	// RLState is what a learning strategy's states are: "system" (the
	// system's own, from its trace; "" means it) or "model" (the model's
	// VIEW of the mapped execution).
	RLState string `json:"rl_state,omitempty" flag:"rl-state"`
	// GenerateDepth and GenerateStates bound the model search of strategy
	// generated in each session (how a session runs: not compared).
	GenerateDepth  int      `json:"-"`
	GenerateStates int64    `json:"-"`
	GenerateConsts []string `json:"-"`
	Created        string   `json:"created"` // RFC 3339, for people; never compared
	// Tool is the modelfuzz that created the campaign (buildinfo), for
	// people; never compared ("" in campaigns stored before it was kept).
	Tool string `json:"tool,omitempty"`

	// The loop's limits of this session: budget, parallelism, timeouts.
	fuzzer.Limits `json:"-"`
	// The session's other settings.
	Session `json:"-"`
}

// Session are the settings of one run of a campaign that are not stored.
type Session struct {
	System    SystemFlags // the system as the command line describes it
	CorpusDir string
	Fresh     bool
	Engine    EngineSettings
	// Series, when set, receives coverage over iterations, a JSON line
	// every SeriesEvery iterations (what compare plots).
	Series      string
	SeriesEvery int64
	// MemProfile, when set, receives a heap profile at the largest heap a
	// stats snapshot saw, and when the campaign ends.
	MemProfile string
	// KnownFiles are known-disagreements files of the trace spec, besides
	// the ones shipped and the one beside the spec (docs/known.md).
	KnownFiles []string
	// Join, when set, is the hub whose campaign this one works for
	// (hub.go), as the worker Worker.
	Join, Worker string
}

// EngineSettings say where the model engine runs.
type EngineSettings struct {
	// Mode is "subprocess" (a supervised sidecar), "inproc", "java" (TLC
	// itself, supervised), "diff" (the native engine in process and TLC,
	// every answer compared), or the URL of a running TLC server of the
	// reference implementation (http://HOST:PORT, its /execute protocol).
	Mode string
	URL  string // an already running sidecar, when set
	// Jar is TLC's tla2tools.jar for java and diff ("": $TLA2TOOLS).
	Jar string
	// DiffDir receives the requests the engines disagree on (diff).
	DiffDir string
}

// Register declares the settings' command-line flags (run's), with their
// defaults.
func (s *Settings) Register(fs *pflag.FlagSet) {
	s.System.Register(fs)
	fs.StringVar(&s.Strategy, "strategy", "", "coverage guidance: model, line, trace, random (default: model with --model, trace otherwise; line needs a build with make cover); or an online strategy: pct, pctcp, pos, dpos, tapct, rounds; or model guidance whose fresh inputs an online strategy builds: model-pctcp, model-dpos; or model guidance where it builds the tails of a third of the mutants, from the rarest state of their parent: model-pctcp-tails, model-dpos-tails; or model guidance over the online strategy's choices, every input an online execution made from a genome that is kept and mutated one choice at a time: model-pctcp-genome, model-dpos-genome; or model guidance where a third of the mutants are ordering mutants (a deep deliver-one, a starved process, a crash in a joint configuration's window): model-reorder; or model guidance whose sessions start with inputs generated from the model: generated")
	fs.IntVar(&s.GenerateDepth, "generate-depth", 0, "generated: search the model's states within this many steps for the inputs to generate (default 40)")
	fs.Int64Var(&s.GenerateStates, "generate-states", 0, "generated: stop that search after this many distinct states (default 200000)")
	fs.StringArrayVar(&s.GenerateConsts, "generate-const", nil, "generated: set a constant of that search only, NAME=VALUE (a tighter bound of the cfg's CONSTRAINT, e.g. MaxRequests=1; repeatable)")
	fs.IntVar(&s.Depth, "depth", 0, "pct, pctcp, dpos, tapct: the bug depth d (d-1 priority change points; default 3)")
	fs.IntVar(&s.Timeouts, "timeouts", 0, "online strategies: election timeouts the harness may inject in one execution (default 6)")
	fs.IntVar(&s.Faults, "faults", 0, "online and learning strategies: drops, duplicates, partitions (each then healed), leadership transfers, conf-changes, tick steps and holds of storage writes, of each, the harness may inject in one execution, within --actions (default 2 for the online strategies, none (-1) for the learning ones)")
	fs.IntVar(&s.RaceRuns, "race-runs", 0, "pct, pctcp, dpos, tapct: random walks of the preliminary analysis that estimates n, n^ and the racy events (default 20)")
	fs.IntVar(&s.Period, "period", 0, "rounds: k, isolated processes rejoin every k rounds (default 4)")
	fs.IntVar(&s.Isolations, "isolations", 0, "rounds: d, the most isolated processes over an execution (default 2 on a system that can drop messages; -1: none)")
	fs.IntVar(&s.Rounds, "rounds", 0, "rounds: r, the rounds the isolations are spread over (default 16)")
	fs.StringVar(&s.Model, "model", "", "TLA+ model to measure and guide with: an embedded model (raft.tla, microbench.tla), a .tla file, or etcdraft.tla: etcd raft's own spec, each execution's library trace validated against Traceetcdraft.tla from the module cache (a build with -tags with_tla)")
	fs.StringVar(&s.RLState, "rl-state", "", "negrl, bonusmaxrl, waypointrl: the states learned over: system (the system's own, from its trace; the default) or model (the model's VIEW of the execution so far, after every step; needs --model)")
	fs.StringVar(&s.Waypoints, "waypoints", "", "negrl, bonusmaxrl, waypointrl, walk: a module of TLA+ predicates over the model's variables, FILE.tla[:DEF] (DEF, default Waypoints, a definition whose value is a tuple of them): the sequence waypointrl learns to pass and every learning strategy counts the episodes that pass (needs --model)")
	fs.StringVar(&s.ReferenceViews, "reference-view", "", "also measure the model's states by these definitions of it (comma-separated VIEWs, e.g. ShapeView), as coverage view:NAME: strategies compared on one abstraction whatever guides them")
	fs.StringVar(&s.ModelConfig, "model-config", "", "the model's TLC configuration (default: MODEL.cfg)")
	fs.StringArrayVar(&s.KnownFiles, "known", nil, "with a trace spec (--model etcdraft.tla): a file of known disagreements of the spec with the system, besides the shipped ones and SPEC.known.json beside the spec (docs/known.md); repeatable")
	fs.StringVar(&s.Engine.Mode, "tlc", "subprocess", "where the model engine runs: subprocess (a supervised sidecar), inproc, java (TLC itself, with --tla2tools), diff (the native engine and TLC on every execution, stopping at the first disagreement), or http://HOST:PORT (a running TLC server of the reference implementation, its /execute protocol)")
	fs.StringVar(&s.Engine.Jar, "tla2tools", "", "TLC's tla2tools.jar, for --tlc java and --tlc diff (default $TLA2TOOLS)")
	fs.StringVar(&s.Engine.URL, "tlc-url", "", "use an already running sidecar at this URL (token from $MODELFUZZ_TLC_TOKEN)")
	fs.StringVar(&s.CorpusDir, "corpus", "", "campaign directory (default modelfuzz-corpus/<adapter>-<strategy>)")
	fs.BoolVar(&s.Fresh, "fresh", false, "delete the campaign in --corpus and start over")
	fs.Uint64Var(&s.Seed, "seed", 1, "seed of every random choice of the campaign")
	fs.Int64Var(&s.Iterations, "iterations", 0, "stop when the campaign has run this many iterations in total (0: no limit)")
	fs.DurationVar(&s.Duration, "duration", 0, "stop after this long, e.g. 30s, 8h (0: no limit)")
	fs.IntVar(&s.Steps, "steps", 0, "steps of a random input, and the most a mutant may have; for an online strategy, the most events (one a step) one execution schedules (default: the adapter's)")
	fs.IntVar(&s.MaxMessages, "max-messages", 5, "most messages one deliver step delivers")
	fs.IntVar(&s.CrashQuota, "crash-quota", -1, "most crash steps in one input (default: the adapter's)")
	fs.IntVar(&s.Requests, "requests", -1, "client requests in a random input (default: the adapter's)")
	fs.StringVar(&s.Actions, "actions", "", "the actions random inputs and mutants use, comma-separated (default: every action the adapter supports, less those the model cannot map; deliver,crash,restart,timeout,request,drop,duplicate,deliver-one,partition,heal,conf-change,transfer-leader,read,tick)")
	fs.IntVar(&s.SeedPopulation, "seed-population", SeedPopulation, "random inputs added when the queue is empty or at a reseed; the first ones are the same for every strategy of one seed (the shared initial population)")
	fs.IntVar(&s.ReseedEvery, "reseed-every", 200, "add random inputs every this many iterations")
	fs.IntVar(&s.Mutations, "mutations", 5, "mutants queued per new coverage item (--energy fixed), the base of an input's energy (--energy rare)")
	fs.StringVar(&s.Energy, "energy", fuzzer.EnergyRare, "energy schedule: fixed (the thesis: --mutations mutants per new item, first in first out, --seed-population random inputs every --reseed-every iterations) or rare (AFLFast-style: the input whose new states the campaign visits least is mutated next, with more mutants the rarer they are; --fresh-share of the iterations run random inputs) or bandit (rare, with each iteration's source, a random input, the online strategy's execution for model-pctcp and model-dpos, or a mutant, drawn in proportion to the new states each found lately per step executed; --fresh-share unused); a continued campaign keeps its own")
	fs.Float64Var(&s.FreshShare, "fresh-share", 0.1, "with --energy rare: the share of iterations that run new random inputs")
	fs.IntVar(&s.Stack, "stack", 8, "with --energy rare: an ordinary mutant gets 1 to this many rounds of mutation, drawn uniformly (AFL's stacked havoc; 1: one round, the policy before the choice); a continued campaign keeps its own")
	fs.IntVar(&s.QueueMax, "queue-max", 20000, "most inputs waiting in the queue (--energy fixed: further mutants are dropped) or kept in the pool of inputs to mutate (--energy rare: a new one replaces a common one); drops are counted in the progress line and the summary")
	fs.StringVar(&s.MemProfile, "memprofile", "", "write a Go heap profile to this file at the largest heap a stats snapshot saw, and when the campaign ends")
	fs.BoolVar(&s.StopOnBug, "stop-on-bug", false, "stop as soon as a new bug is found (for experiments)")
	fs.IntVar(&s.Pipeline, "pipeline", 0, "inputs executed as a batch, measured while the next batch executes (1: one at a time; default max(8, --parallel) for a new campaign; part of the campaign's settings)")
	fs.IntVar(&s.Parallel, "parallel", runtime.NumCPU(), "system instances executing inputs at once (results do not depend on it)")
	fs.DurationVar(&s.ExecTimeout, "exec-timeout", 10*time.Second, "stop an execution that runs longer and record a hang bug (0: no limit; default 1m with --model etcdraft.tla and --adapter redisraft, 2m with --adapter etcd)")
	fs.DurationVar(&s.StatsEvery, "stats-every", 10*time.Second, "store a stats snapshot in the corpus this often (coverage over time)")
	fs.BoolVar(&s.Minimize, "minimize", true, "minimize every new bug in the background (and unfinished ones of earlier sessions)")
	fs.IntVar(&s.MinimizeBudget.MaxTries, "minimize-tries", 3000, "most executions one bug's minimization may use per session")
	fs.DurationVar(&s.MinimizeBudget.MaxTime, "minimize-time", 2*time.Minute, "most time one bug's minimization may use per session")
	fs.StringVar(&s.Join, "join", "", "work for the campaign of the hub at this NATS URL (nats://HOST:4222, modelfuzz hub): publish the inputs that reach new coverage and the bugs, take in the other workers' (this --corpus stays the cache and resume point)")
	fs.StringVar(&s.Worker, "worker", "", "with --join: this worker's name in the campaign, unique among its workers (default: the host's name)")
	fs.StringVar(&s.Series, "series", "", "write coverage over iterations to this file, one JSON object a line (what compare plots)")
	fs.Int64Var(&s.SeriesEvery, "series-every", 10, "with --series: a line every this many iterations")
}

// Diff compares the stored settings of a campaign with the ones it is
// continued with: "" when they agree, else the first difference, named by
// its flag, e.g. "--steps 100 (not 50)". The adapter's configuration is
// compared as JSON.
func (s *Settings) Diff(cur *Settings) string {
	if d := diffFlags(reflect.ValueOf(s).Elem(), reflect.ValueOf(cur).Elem()); d != "" {
		return d
	}
	if a, b := compactJSON(s.AdapterConfig), compactJSON(cur.AdapterConfig); !bytes.Equal(a, b) {
		if d := diffJSONKeys(a, b); d != "" {
			return "adapter configuration: " + d
		}
		return fmt.Sprintf("adapter configuration %s (not %s)", a, b)
	}
	return ""
}

// diffJSONKeys names the keys of two JSON objects whose values differ:
// `"api" unset (not "mixed")`; "" when either is not an object.
func diffJSONKeys(a, b []byte) string {
	var ma, mb map[string]json.RawMessage
	if json.Unmarshal(a, &ma) != nil || json.Unmarshal(b, &mb) != nil {
		return ""
	}
	keys := slices.Sorted(maps.Keys(ma))
	for k := range mb {
		if _, ok := ma[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	val := func(m map[string]json.RawMessage, k string) string {
		if v, ok := m[k]; ok {
			return string(v)
		}
		return "unset"
	}
	var diffs []string
	for _, k := range slices.Compact(keys) {
		if va, vb := val(ma, k), val(mb, k); va != vb {
			diffs = append(diffs, fmt.Sprintf("%q %s (not %s)", k, va, vb))
		}
	}
	return strings.Join(diffs, ", ")
}

// diffFlags compares the fields with a flag tag, in declaration order,
// embedded structs included.
func diffFlags(old, cur reflect.Value) string {
	t := old.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Tag.Get("json") == "-" {
			continue
		}
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			if d := diffFlags(old.Field(i), cur.Field(i)); d != "" {
				return d
			}
			continue
		}
		name := f.Tag.Get("flag")
		if name == "" {
			continue
		}
		o, c := fmt.Sprint(old.Field(i).Interface()), fmt.Sprint(cur.Field(i).Interface())
		if o != c {
			return fmt.Sprintf("--%s %s (not %s)", name, flagValueText(o), flagValueText(c))
		}
	}
	return ""
}

// flagValueText is a setting's value in a message; an empty one is named.
func flagValueText(v string) string {
	if v == "" || v == "[]" {
		return "unset"
	}
	return v
}

// compactJSON is b without insignificant space (b itself when not JSON).
func compactJSON(b []byte) []byte {
	var out bytes.Buffer
	if json.Compact(&out, b) != nil {
		return b
	}
	return out.Bytes()
}

// CompactJSON is b without insignificant space (b itself when not JSON).
func CompactJSON(b []byte) string { return string(compactJSON(b)) }

// created is the time stamp of a new campaign.
func created() string { return time.Now().UTC().Format(time.RFC3339) }

// Validate checks the settings a command line gave, before anything is
// opened or stored, and fills the strategy's default; given reports
// whether a flag was on the command line. What depends on the system is
// checked once it is known (fitSystem), what depends on the model when it
// is loaded.
func (s *Settings) Validate(given func(string) bool) error {
	if s.Strategy == "" {
		s.Strategy = "trace"
		if s.Model != "" {
			s.Strategy = "model"
		}
	}
	if _, err := guidance.LookupStrategy(s.Strategy); err != nil {
		return fmt.Errorf("unknown --strategy %q (known: %s)", s.Strategy, guidance.StrategyNames())
	}
	if modelGuided(s.Strategy) && s.Model == "" {
		return fmt.Errorf("--strategy %s needs a model: add --model (for this adapter: --model %s)", s.Strategy, ModelHint(s.System.Adapter))
	}
	if err := checkJoinURL(s.Join); err != nil {
		return err
	}
	// Refused before a corpus is made (the loop refuses them too).
	if guidance.IsModelGenome(s.Strategy) && s.Energy != fuzzer.EnergyRare {
		return fmt.Errorf("--strategy %s keeps and mutates the genomes of its executions in the pool: it needs --energy %s, not %q", s.Strategy, fuzzer.EnergyRare, s.Energy)
	}
	if pooled := guidance.IsModelTails(s.Strategy) || s.Strategy == guidance.StrategyModelReorder; pooled && s.Energy != fuzzer.EnergyRare && s.Energy != fuzzer.EnergyBandit {
		return fmt.Errorf("--strategy %s mutates the inputs of the rare schedule's pool: it needs --energy %s or %s, not %q", s.Strategy, fuzzer.EnergyRare, fuzzer.EnergyBandit, s.Energy)
	}
	if err := s.validateGenerate(); err != nil {
		return err
	}
	switch m := s.Engine.Mode; {
	case m == "subprocess" || m == "inproc" || m == "java" || m == "diff":
	case strings.HasPrefix(m, "http://") || strings.HasPrefix(m, "https://"):
	default:
		return fmt.Errorf("unknown --tlc %q (subprocess, inproc, java, diff or http://HOST:PORT)", s.Engine.Mode)
	}
	if s.Engine.Jar != "" && s.Engine.Mode != "java" && s.Engine.Mode != "diff" {
		return fmt.Errorf("--tla2tools is for --tlc java or --tlc diff")
	}
	switch {
	case s.Iterations < 0:
		return fmt.Errorf("--iterations must not be negative")
	case s.Duration < 0:
		return fmt.Errorf("--duration must not be negative")
	case s.Pipeline < 0 || s.Pipeline > 1024 || (s.Pipeline == 0 && given("pipeline")):
		return fmt.Errorf("--pipeline must be between 1 and 1024, got %d", s.Pipeline)
	case s.Parallel < 1 || s.Parallel > 1024:
		return fmt.Errorf("--parallel must be between 1 and 1024, got %d", s.Parallel)
	case s.ExecTimeout < 0:
		return cmdline.NotNegative("--exec-timeout", s.ExecTimeout)
	case s.StatsEvery < 0:
		return cmdline.NotNegative("--stats-every", s.StatsEvery)
	case s.MinimizeBudget.MaxTime < 0:
		return cmdline.NotNegative("--minimize-time", s.MinimizeBudget.MaxTime)
	case s.SeriesEvery < 1:
		return fmt.Errorf("--series-every must be at least 1, got %d", s.SeriesEvery)
	case s.MinimizeBudget.MaxTries < 1:
		return fmt.Errorf("--minimize-tries must be at least 1, got %d", s.MinimizeBudget.MaxTries)
	case s.CrashQuota < 0 && given("crash-quota"):
		return fmt.Errorf("--crash-quota must not be negative, got %d", s.CrashQuota)
	case given("queue-max") && s.QueueMax == 0:
		return fmt.Errorf("--queue-max must be at least 1, got 0")
	case given("corpus") && s.CorpusDir == "":
		return fmt.Errorf("--corpus: an empty directory name (leave it out for modelfuzz-corpus/ADAPTER-STRATEGY)")
	}
	// The files the session writes, before anything runs.
	for flag, path := range map[string]string{"--series": s.Series, "--memprofile": s.MemProfile} {
		if path != "" {
			if err := cmdline.OutFile(flag, path); err != nil {
				return err
			}
		}
	}
	// The loop's own settings, as the loop checks them.
	if err := fuzzer.CheckSettings(s.Params, s.Limits); err != nil {
		return err
	}
	return s.validateLearning()
}

// validateLearning checks the settings of the learning strategies.
func (s *Settings) validateLearning() error {
	learning := guidance.IsLearning(s.Strategy)
	switch s.RLState {
	case "", "system":
	case "model":
		if !learning {
			return fmt.Errorf("--rl-state is for the learning strategies (%s), not %s", strings.Join(guidance.LearningStrategies, ", "), s.Strategy)
		}
	default:
		return fmt.Errorf("--rl-state must be system or model, not %q", s.RLState)
	}
	if s.Strategy == "waypointrl" && s.Waypoints == "" {
		return fmt.Errorf("--strategy waypointrl needs --waypoints FILE.tla[:DEF] (a module of TLA+ predicates over the model's variables, e.g. tests/etcdraft/raft_waypoints.tla) and --model")
	}
	if s.Waypoints != "" && !learning {
		return fmt.Errorf("--waypoints is for the learning strategies (%s), not %s", strings.Join(guidance.LearningStrategies, ", "), s.Strategy)
	}
	return nil
}

// chooseSystem settles the system the campaign runs: the model names its
// adapter unless --adapter is given (raft.tla goes with etcdraft), and
// validating etcd raft's own trace (--model etcdraft.tla) runs etcdraft.
func (s *Settings) chooseSystem(given func(string) bool) error {
	if s.Model != "" && !given("adapter") {
		if name := AdapterForModel(s.Model); name != "" {
			s.System.Adapter = name // the model names its system: raft.tla goes with etcdraft
		}
	}
	s.System.forModel = s.Model != ""
	s.System.traceSpec = models.IsEtcdraftSpec(s.Model)
	s.System.given = given
	if s.System.traceSpec {
		if given("adapter") && s.System.Adapter != "etcdraft" {
			return fmt.Errorf("--model %s validates the traces of adapter etcdraft, not %s", s.Model, s.System.Adapter)
		}
		s.System.Adapter = "etcdraft"
		if !given("parallel") {
			// The library sleeps 1 ms in every traced receive
			// (traceReceiveMessage): executions wait far more than they
			// compute, so more of them overlap.
			s.Parallel = 8 * runtime.NumCPU()
		}
		if !given("exec-timeout") {
			// For the same reason an execution takes far longer than its
			// CPU time, more so on a loaded machine: at 10 s, campaigns
			// next to others on two cores reported executions that were
			// only waiting as hangs.
			s.ExecTimeout = time.Minute
		}
	}
	if ad, ok := adapters[s.System.Adapter]; ok && ad.ExecTimeout > 0 && !given("exec-timeout") {
		s.ExecTimeout = ad.ExecTimeout
	}
	return nil
}

// fitSystem completes the settings with what depends on the system: the
// input shape's defaults, the actions of a new campaign, the online
// strategies' defaults (checked against the system), the corpus's default
// directory, and the stored fields that name the system.
func (c *Campaign) fitSystem() error {
	s, ad, spec := c.Settings, c.System.Adapter, c.System.Spec()
	if s.Steps == 0 {
		s.Steps = ad.Steps
		if c.System.Steps > 0 {
			s.Steps = c.System.Steps
		}
	}
	if s.Requests < 0 {
		s.Requests = ad.Requests
	}
	if s.CrashQuota < 0 { // not given (Validate refuses a negative one)
		s.CrashQuota = 0
		if spec.Supports(schedule.Crash) {
			s.CrashQuota = ad.CrashQuota
		}
	}
	if s.Actions == "" {
		s.Actions = c.defaultActions(spec)
		if c.System.Actions != nil {
			s.Actions = actionsText(c.System.Actions)
		}
	}
	if err := s.OnlineParams.Defaults(s.Strategy, spec); err != nil {
		return err
	}
	if s.CorpusDir == "" {
		s.CorpusDir = "modelfuzz-corpus/" + ad.Name + "-" + s.Strategy
		if s.System.traceSpec {
			// Not the raft.tla campaign's: its settings differ.
			s.CorpusDir = "modelfuzz-corpus/" + ad.Name + "-spec-" + s.Strategy
		}
	}
	s.Version, s.Adapter, s.AdapterConfig, s.Created = SettingsVersion, ad.Name, c.System.Config(), created()
	s.Tool = buildinfo.Read().String()
	return nil
}

// checkJoinURL refuses a --join that is not a NATS URL (or a list of
// them), before a corpus is made or a minute is spent reconnecting.
func checkJoinURL(join string) error {
	if join == "" {
		return nil
	}
	for _, u := range strings.Split(join, ",") {
		p, err := url.Parse(strings.TrimSpace(u))
		if err != nil || p.Host == "" || (p.Scheme != "nats" && p.Scheme != "tls" && p.Scheme != "ws" && p.Scheme != "wss") {
			return fmt.Errorf("--join %q: want a hub's NATS URL, nats://HOST:PORT (as modelfuzz hub prints it)", u)
		}
	}
	return nil
}
