package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/modelfuzz/modelfuzz/internal/jsonerr"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/modelfuzz/modelfuzz/internal/cmdline"
	"github.com/modelfuzz/modelfuzz/tlc"
	"github.com/modelfuzz/modelfuzz/tlc/check"
	"github.com/modelfuzz/modelfuzz/tlc/output"
)

// checkSettings are the options of one `tlc check` run, declared once:
// the flags fill them.
type checkSettings struct {
	spec, config string
	consts       []string
	workers      string // a number or "auto"
	maxDepth     int
	jsonOut      bool
	cpuProfile   string
	interpret    bool

	// TLC's options (the flags have TLC's names).
	noDeadlock           bool // -deadlock: do NOT check for deadlock
	simulate             bool
	traces               int64 // -simulate num=N
	depth                int
	seed                 int64
	seedSet              bool
	dump, dumpDot        string
	dotOptions           string
	coverage             int // minutes; -1: no coverage
	coverageSet          bool
	tool                 bool
	terse                bool
	teDir                string
	cont, diffTrace      bool
	checkpoint           int
	recover              string
	gzip                 bool
	checkpointLevels     int  // hidden: a checkpoint every N levels (tests)
	killAfterCheckpoint  bool // hidden: SIGKILL itself after the first checkpoint (tests)
	maxSetSize           int
	fp                   int
	metadir              string
	cleanup, nowarning   bool
	userFile             string
	modelcheck, noTE     bool
	forceTE              bool // -generateSpecTE: a trace-explorer spec even with -tool
	view                 bool // -view: trace states printed through the VIEW
	noTEBin              bool
	fpSet, maxSetSizeSet bool
	depthSet             bool
}

// checkHelp is tlc check's long help, before its exit code table.
const checkHelp = `Check a TLA+ specification exhaustively with its TLC configuration, as TLC
does: a breadth-first search of the state graph counting distinct states
(after VIEW and SYMMETRY) and generated states, checking ASSUMEs,
invariants, deadlock and constraints. A violation prints a numbered trace
whose steps name the action that took them and its location, as TLC's do
(<Prepare(r1) line 16, col 3 to line 19, col 22 of module Commit>), with
the cfg's ALIAS applied.

SPEC is a .tla file or a module name (MCFoo finds MCFoo.tla); the
configuration is SPEC.cfg unless -config names another file. A PROPERTY the
checker cannot check is named at the end ("N properties NOT checked") and
the exit code is 153, never 0.

TLC's options are accepted as TLC spells them, with one dash, as well as
with two:

  modelfuzz tlc check -workers 2 -deadlock -simulate -depth 50 Spec

  -workers N|auto       worker goroutines (default: one per CPU)
  -config FILE          the configuration (default: SPEC.cfg)
  -deadlock             do NOT check for deadlock (TLC's meaning)
  -continue             keep checking after an invariant is violated
  -difftrace            print only the variables a trace step changes
  -view                 print trace states through the cfg's VIEW
  -simulate [num=N]     random behaviours instead of the exhaustive search,
                        N per worker, as TLC (default: until interrupted)
  -depth N              the length of a simulated behaviour (default 100)
  -seed N               the seed of -simulate (default: random, printed)
  -dump FILE            write every distinct state found to FILE
  -dump dot[,actionlabels,colorize] FILE
                        write the state graph to FILE in GraphViz's format
  -coverage N           print coverage at the end (every N min): distinct
                        values per variable, states per action
  -metadir DIR          where the queue spills to disk (default: the system's
                        temporary directory)
  -nowarning            do not print warnings
  -userFile FILE        write Print's output to FILE
  -checkpoint N          write a checkpoint every N minutes (default 0: none;
                        TLC's default is 30) into -metadir, or else
                        states/<date> beside the spec: the search's queue,
                        fingerprints, trace records and state graph
  -recover DIR          go on from the checkpoint in DIR (a run killed
                        after a checkpoint ends with the verdict and counts
                        of a run never interrupted); with -checkpoint N,
                        new checkpoints replace it
  -gzip                 compress the checkpoint
  -tool                 every message between TLC's markers, with its code
                        and class (@!@!@STARTMSG code:class @!@!@ ...
                        @!@!@ENDMSG code @!@!@), as the Toolbox and the
                        VS Code extension read them
  -terse                print sets unexpanded ([S -> T], SUBSET S, S \cup T)
                        in Print, PrintT, Assert and error traces, where
                        TLC by default prints their elements
  -noGenerateSpecTE     do not write SPEC_TTrace_<seconds>.tla and .cfg, the
                        trace-explorer spec of an error trace (written
                        beside the spec, or in -teSpecOutDir DIR)
  -generateSpecTE [nomonolith]
                        write it also with -tool and for a trace-explorer
                        spec, where TLC writes none by default
  -cleanup, -modelcheck
                        accepted: they ask for nothing the check would do
                        otherwise (no metadata)
  -fp N                 accepted with a warning that it changes nothing

Every other option of TLC is refused by name with exit code 1 (-maxSetSize, -generate, -inv, -lncheck, -dfid, -fpmem, ...).

Exit codes are TLC's:
`

func newCheckCmd() *cobra.Command {
	s := &checkSettings{}
	cmd := &cobra.Command{
		Use:                "check SPEC[.tla] [flags]",
		Short:              "Explore every reachable state of a TLA+ spec and check its invariants, as TLC does",
		Long:               checkHelp + exitCodeTable(),
		DisableFlagParsing: true,
		RunE:               s.run,
	}
	s.register(cmd.Flags())
	cmd.Flags().BoolP("help", "h", false, "help for check")
	return cmd
}

// run parses TLC's arguments as TLC spells them and checks the spec.
func (s *checkSettings) run(cmd *cobra.Command, args []string) error {
	args, err := translateTLCArgs(args, cmd.Flags())
	if err != nil {
		return err
	}
	if err := cmd.Flags().Parse(args); err != nil {
		return usageErrorf("%s", cmdline.FlagErrorText(err))
	}
	if help, _ := cmd.Flags().GetBool("help"); help {
		return cmd.Help()
	}
	rest := cmd.Flags().Args()
	switch {
	case len(rest) == 0:
		return usageErrorf("needs the spec to check: SPEC.tla or a module name")
	case len(rest) > 1:
		return usageErrorf("takes one spec (SPEC.tla or a module name), not %d: %s", len(rest), strings.Join(rest, " "))
	}
	if s.maxDepth < 0 || s.maxDepth == 0 && cmd.Flags().Changed("max-depth") {
		return usageErrorf("--max-depth must be at least 1, got %d", s.maxDepth)
	}
	s.spec = rest[0]
	s.seedSet = cmd.Flags().Changed("seed")
	s.fpSet = cmd.Flags().Changed("fp")
	s.depthSet = cmd.Flags().Changed("depth")
	s.maxSetSizeSet = cmd.Flags().Changed("maxSetSize")
	s.coverageSet = cmd.Flags().Changed("coverage")
	if !s.coverageSet {
		s.coverage = -1
	}
	return cmdline.Profiled(s.cpuProfile, func() error { return runCheck(cmd.OutOrStdout(), s) })
}

// register declares check's flags.
func (s *checkSettings) register(f *pflag.FlagSet) {
	f.StringVar(&s.config, "config", "", "TLC configuration file (default: SPEC.cfg)")
	f.StringArrayVar(&s.consts, "const", nil, "set a constant, NAME=VALUE in cfg syntax (repeatable); replaces the cfg's value")
	f.StringVar(&s.workers, "workers", "", "worker goroutines, a number or auto (default: number of CPUs)")
	f.IntVar(&s.maxDepth, "max-depth", 0, "explore only the states within this many steps (initial states are at depth 1); the result is then an error saying so")
	f.BoolVar(&s.jsonOut, "json", false, "print one JSON object with the result (trace values as JSON values)")
	f.StringVar(&s.cpuProfile, "cpuprofile", "", "write a Go CPU profile of the check to this file")
	f.BoolVar(&s.interpret, "interpret", false, "evaluate with the interpreter alone, compiling no definition into closures (slower: to compare the two evaluators)")
	f.BoolVar(&s.noDeadlock, "deadlock", false, "do NOT check for deadlock (TLC's -deadlock)")
	f.BoolVar(&s.simulate, "simulate", false, "generate random behaviours instead of the exhaustive search")
	f.Int64Var(&s.traces, "num", 0, "with --simulate: the number of behaviours per worker (TLC's num=N; default: until interrupted)")
	f.IntVar(&s.depth, "depth", 100, "with --simulate: the length of a behaviour, in states")
	f.Int64Var(&s.seed, "seed", 0, "with --simulate: the random seed (default: a random one, printed)")
	f.StringVar(&s.dump, "dump", "", "write every distinct state found to this file, as TLC's -dump")
	f.StringVar(&s.dumpDot, "dump-dot", "", "write the state graph to this file in GraphViz's dot format (TLC's -dump dot FILE)")
	f.StringVar(&s.dotOptions, "dot-options", "", "with --dump-dot: TLC's options, comma-separated: actionlabels, colorize")
	f.IntVar(&s.coverage, "coverage", 0, "print coverage per action at the end, and every N minutes when N > 0")
	f.BoolVar(&s.cont, "continue", false, "keep checking after an invariant is violated, reporting each violation")
	f.BoolVar(&s.diffTrace, "difftrace", false, "print only the variables each trace step changes")
	f.IntVar(&s.checkpoint, "checkpoint", 0, "write a checkpoint every N minutes (0: none) into --metadir, or states/<date> beside the spec")
	f.StringVar(&s.recover, "recover", "", "go on from the checkpoint in this directory")
	f.BoolVar(&s.gzip, "gzip", false, "compress the checkpoint")
	f.IntVar(&s.checkpointLevels, "checkpoint-levels", 0, "testing: a checkpoint every N levels of the search")
	f.BoolVar(&s.killAfterCheckpoint, "kill-after-checkpoint", false, "testing: kill the process with SIGKILL once the first checkpoint is written")
	_ = f.MarkHidden("checkpoint-levels")
	_ = f.MarkHidden("kill-after-checkpoint")
	f.IntVar(&s.maxSetSize, "maxSetSize", 0, "TLC's bound on the size of sets it enumerates: not supported")
	f.IntVar(&s.fp, "fp", 0, "TLC's choice of fingerprint polynomial: accepted, without effect (one fingerprint function)")
	f.StringVar(&s.metadir, "metadir", "", "TLC's metadata directory: where the search's queue goes when a level does not fit in memory (default: the system's temporary directory)")
	f.BoolVar(&s.cleanup, "cleanup", false, "TLC's cleanup of its metadata directory: accepted, without effect")
	f.BoolVar(&s.nowarning, "nowarning", false, "do not print warnings")
	f.StringVar(&s.userFile, "userFile", "", "write the output of Print and PrintT to this file")
	f.BoolVar(&s.modelcheck, "modelcheck", false, "the exhaustive search (the default)")
	f.BoolVar(&s.noTE, "noGenerateSpecTE", false, "do not write the trace-explorer spec of an error trace")
	f.BoolVar(&s.forceTE, "generateSpecTE", false, "write the trace-explorer spec of an error trace also with -tool or for a trace-explorer spec")
	f.StringVar(&s.teDir, "teSpecOutDir", "", "where the trace-explorer spec is written (default: beside the spec)")
	f.BoolVar(&s.noTEBin, "noGenerateSpecTEBin", false, "no binary trace (none is ever written)")
	f.BoolVar(&s.view, "view", false, "print trace states through the cfg's VIEW, as TLC's -view")
	f.BoolVar(&s.terse, "terse", false, "print lazy sets unexpanded in Print, PrintT, Assert and error traces, as TLC's -terse")
	f.BoolVar(&s.tool, "tool", false, "print every message between TLC's -tool markers with its code and class (for the Toolbox and the VS Code extension)")
}

// exitCodeTable renders check.ExitCodes for the help.
func exitCodeTable() string {
	var b strings.Builder
	for _, c := range check.ExitCodes {
		fmt.Fprintf(&b, "  %3d  %s\n", c.Code, c.Text)
	}
	return b.String()
}

// validate refuses what the check does not implement.
func (s *checkSettings) validate() error {
	switch {
	case s.coverage < -1 || s.coverageSet && s.coverage < 0:
		return usageErrorf("-coverage %d: want a number of minutes (0: only at the end)", s.coverage)
	case s.tool && (s.jsonOut || s.simulate || s.cont || s.recover != "" || s.checkpoint > 0):
		return usageErrorf("-tool with -json, -simulate, -continue, -checkpoint or -recover is not supported: their messages have no TLC code here")
	case s.checkpoint < 0:
		return usageErrorf("-checkpoint %d: want a number of minutes (0: no checkpoints)", s.checkpoint)
	case s.simulate && (s.checkpoint > 0 || s.checkpointLevels > 0 || s.recover != ""):
		return usageErrorf("-checkpoint and -recover with -simulate are not supported: a simulation keeps no queue")
	case s.recover != "" && s.cont:
		return usageErrorf("-recover with -continue is not supported: the violations found before the checkpoint are not in it")
	case s.recover != "" && (s.dump != "" || s.dumpDot != ""):
		return usageErrorf("-recover with -dump is not supported: the states found before the checkpoint are not in it")
	case s.recover != "" && s.coverage >= 0:
		return usageErrorf("-recover with -coverage is not supported: the counts before the checkpoint are not in it")
	case s.maxSetSizeSet:
		return usageErrorf("-maxSetSize is not supported: sets are enumerated whatever their size")
	case s.simulate && (s.dump != "" || s.dumpDot != ""):
		return usageErrorf("-dump with -simulate is not supported")
	case s.simulate && s.cont:
		return usageErrorf("-continue with -simulate is not supported")
	case s.simulate && s.coverage >= 0:
		return usageErrorf("-coverage with -simulate is not supported")
	case !s.simulate && s.traces != 0:
		return usageErrorf("num=%d needs -simulate", s.traces)
	case s.depth <= 0:
		return usageErrorf("-depth %d: want a positive length", s.depth)
	}
	for _, o := range strings.Split(s.dotOptions, ",") {
		switch o {
		case "", "actionlabels", "colorize":
		default:
			return usageErrorf("-dump dot,%s is not supported (supported: actionlabels, colorize)", o)
		}
	}
	if s.dotOptions != "" && s.dumpDot == "" {
		return usageErrorf("--dot-options needs --dump-dot")
	}
	return nil
}

// noEffect names the options given that change nothing here, so that
// none is ignored silently.
func (s *checkSettings) noEffect() []string {
	var out []string
	if s.fpSet {
		out = append(out, fmt.Sprintf("-fp %d has no effect: the check has one fingerprint function", s.fp))
	}
	if !s.simulate && s.seedSet {
		out = append(out, "-seed has no effect without -simulate: the search makes no random choice (RandomElement takes the least element)")
	}
	if !s.simulate && s.depthSet {
		out = append(out, "-depth has no effect without -simulate (--max-depth bounds the search)")
	}
	return out
}

// workerCount parses -workers (TLC: a number or auto).
func (s *checkSettings) workerCount() (int, error) {
	switch s.workers {
	case "", "auto":
		return runtime.NumCPU(), nil
	}
	n, err := strconv.Atoi(s.workers)
	if err != nil || n < 1 {
		return 0, usageErrorf("-workers %s: want a number of workers (at least 1) or auto", s.workers)
	}
	return n, nil
}

// missingFile words a load error that is a file not found: the path and
// "no such file", with the way to name the cfg.
func missingFile(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && errors.Is(err, fs.ErrNotExist) {
		if strings.HasSuffix(pe.Path, ".cfg") {
			return fmt.Errorf("%s: no such file (the cfg is SPEC.cfg unless --config FILE names it)", pe.Path)
		}
		return fmt.Errorf("%s: no such file", pe.Path)
	}
	return err
}

// resolveSpec finds the spec file: the path itself, or the module name
// with .tla (TLC accepts both).
func resolveSpec(spec string) (string, error) {
	if st, err := os.Stat(spec); err == nil && !st.IsDir() {
		return spec, nil
	}
	if !strings.HasSuffix(spec, ".tla") {
		if st, err := os.Stat(spec + ".tla"); err == nil && !st.IsDir() {
			return spec + ".tla", nil
		}
	}
	_, err := os.Stat(spec)
	if err == nil {
		err = fmt.Errorf("%s: is a directory, not a spec", spec)
	} else {
		err = jsonerr.FileError(spec, err)
	}
	return "", &ExitError{Code: check.ExitError, Err: fmt.Errorf("tlc check: %v", err)}
}

// resolveConfig finds the configuration: SPEC.cfg by default; -config
// FILE, or FILE.cfg as TLC reads it.
func resolveConfig(config, spec string) string {
	if config == "" {
		return strings.TrimSuffix(spec, ".tla") + ".cfg"
	}
	if _, err := os.Stat(config); err != nil && !strings.HasSuffix(config, ".cfg") {
		if _, err := os.Stat(config + ".cfg"); err == nil {
			return config + ".cfg"
		}
	}
	return config
}

func runCheck(w io.Writer, s *checkSettings) error {
	start := time.Now()
	if err := s.validate(); err != nil {
		return err
	}
	workers, err := s.workerCount()
	if err != nil {
		return err
	}
	spec, err := resolveSpec(s.spec)
	if err != nil {
		return err
	}
	cfgPath := resolveConfig(s.config, spec)
	if s.simulate && !s.seedSet {
		s.seed = time.Now().UnixNano()
	}
	out := output.New(w, start, output.Options{JSON: s.jsonOut, DiffTrace: s.diffTrace, View: s.view, Tool: s.tool, Terse: s.terse, NoWarning: s.nowarning})
	out.Banner(spec, cfgPath, workers, s.simulate, s.seed)
	m, closeModel, err := s.loadModel(w, out, spec, cfgPath)
	if err != nil {
		return err
	}
	defer closeModel()
	if s.simulate {
		return runSimulate(out, m, s, workers)
	}
	opt, err := s.options(out, workers, spec, cfgPath)
	if err != nil {
		return err
	}
	violations := 0
	if s.cont {
		opt.Violation = func(r *check.Result) { // called under the checker's lock
			violations++
			if !s.jsonOut {
				out.Violation(r)
			}
		}
	}
	obs, err := s.observe(m, &opt)
	if err != nil {
		return err
	}
	stopCoverage := func() {}
	if obs.cov != nil && s.coverage > 0 && !s.jsonOut {
		stopCoverage = every(time.Duration(s.coverage)*time.Minute, func() {
			out.Coverage(obs.cov) // not inside a progress line
		})
	}
	res := tlc.Check(m, opt)
	stopCoverage()
	if err := obs.close(); err != nil {
		return err
	}
	if s.jsonOut {
		out.ResultJSON(res)
	} else {
		if obs.cov != nil {
			out.SetFinalCoverage(obs.cov)
		}
		out.Result(res, violations)
		s.writeTraceSpec(out, m, spec, res)
	}
	if res.ExitCode != 0 {
		return &ExitError{Code: res.ExitCode, Err: fmt.Errorf("")}
	}
	return nil
}

// writeTraceSpec writes the trace-explorer spec of an error trace, as TLC
// does, beside the spec or in -teSpecOutDir, unless -noGenerateSpecTE or
// -continue. As TLC, it writes none in -tool mode (the Toolbox explores
// traces its own way) or when the spec is itself a trace-explorer spec
// (its name has _TTrace), unless -generateSpecTE.
func (s *checkSettings) writeTraceSpec(out *output.Printer, m *tlc.Model, spec string, res *check.Result) {
	if s.noTE || s.cont || !output.TraceSpecWritten(res) {
		return
	}
	if !s.forceTE && (s.tool || strings.Contains(filepath.Base(spec), "_TTrace")) {
		return
	}
	dir := s.teDir
	if dir == "" {
		dir = filepath.Dir(spec)
	}
	path, err := output.WriteTraceSpec(m, dir, res, time.Now())
	if err != nil {
		// The verdict stands; only its replay is missing.
		fmt.Fprintf(os.Stderr, "modelfuzz: tlc check: the trace-explorer spec: %v\n", err)
		return
	}
	out.TraceSpecPath(path)
}

// options are the search's options from the settings: checkpoints, where
// the queue spills, progress reports.
func (s *checkSettings) options(out *output.Printer, workers int, spec, cfgPath string) (check.Options, error) {
	opt := check.Options{Workers: workers, MaxDepth: s.maxDepth, Continue: s.cont}
	if err := s.checkpointing(&opt, out, spec, cfgPath); err != nil {
		return opt, err
	}
	if s.recover == "" {
		out.Starting()
	} else {
		out.Recovering(s.recover)
	}
	if s.metadir != "" {
		// TLC's metadata directory: where the search's queue spills to
		// disk.
		if err := os.MkdirAll(s.metadir, 0o755); err != nil {
			return opt, &ExitError{Code: check.ExitError, Err: fmt.Errorf("tlc check: -metadir: %v", err)}
		}
		opt.QueueDir = s.metadir
	}
	if !s.jsonOut {
		opt.InitStart = out.ComputingInit
		opt.Live = out
		opt.InitDone = out.InitDone
		opt.Progress = out.Progress
		opt.ProgressEvery = time.Minute
	}
	return opt, nil
}

// loadModel loads the spec with its cfg and the settings that change the
// model (-deadlock, where Print goes), and prints the warnings; close
// closes the -userFile.
func (s *checkSettings) loadModel(w io.Writer, out *output.Printer, spec, cfgPath string) (m *tlc.Model, close func(), err error) {
	m, err = tlc.Load(tlc.Spec{Module: spec, Config: cfgPath, Consts: s.consts, Interpret: s.interpret})
	if err != nil {
		code, res := tlc.LoadFailure(err)
		err = missingFile(err)
		if s.jsonOut {
			out.LoadFailed(res, err)
			return nil, nil, &ExitError{Code: code, Err: fmt.Errorf("")}
		}
		out.LoadFailedTool(code, err)
		return nil, nil, &ExitError{Code: code, Err: err}
	}
	out.SetModel(m)
	m.Terse = s.terse
	if s.noDeadlock {
		m.CheckDeadlock = false
	}
	if s.jsonOut {
		m.Out = os.Stderr
	}
	close = func() {}
	if s.userFile != "" {
		f, err := os.Create(s.userFile)
		if err != nil {
			return nil, nil, &ExitError{Code: check.ExitError, Err: fmt.Errorf("tlc check: -userFile: %v", err)}
		}
		m.Out = f
		close = func() { f.Close() }
	}
	if !s.nowarning && !s.jsonOut {
		for _, wn := range append(s.noEffect(), m.Warnings...) {
			fmt.Fprintf(w, "Warning: %s\n", wn)
			out.Warned()
		}
	}
	return m, close, nil
}

// observers are what watches every transition of the search: -coverage's
// counts and the -dump writers.
type observers struct {
	cov   *output.Coverage
	dumps []*output.StateDump
}

// observe sets up -coverage and -dump and hands every transition to them.
func (s *checkSettings) observe(m *tlc.Model, opt *check.Options) (*observers, error) {
	obs := &observers{}
	if s.coverage >= 0 {
		obs.cov = output.NewCoverage(m)
	}
	for _, d := range []struct {
		path string
		dot  bool
	}{{s.dump, false}, {s.dumpDot, true}} {
		if d.path == "" {
			continue
		}
		sd, err := output.NewStateDump(d.path, d.dot, s.dotOptions, m)
		if err != nil {
			return nil, &ExitError{Code: check.ExitError, Err: fmt.Errorf("tlc check: -dump: %v", err)}
		}
		obs.dumps = append(obs.dumps, sd)
	}
	if obs.cov != nil || len(obs.dumps) > 0 {
		opt.Step = func(t check.Transition) {
			if obs.cov != nil {
				obs.cov.Step(t)
			}
			for _, d := range obs.dumps {
				d.Step(t)
			}
		}
	}
	return obs, nil
}

// close finishes the dumps.
func (o *observers) close() error {
	for _, d := range o.dumps {
		if err := d.Close(); err != nil {
			return &ExitError{Code: check.ExitError, Err: fmt.Errorf("tlc check: -dump: %v", err)}
		}
	}
	return nil
}

// checkpointing sets the options of -checkpoint and -recover.
func (s *checkSettings) checkpointing(opt *check.Options, out *output.Printer, spec, cfgPath string) error {
	if s.checkpoint == 0 && s.checkpointLevels == 0 && s.recover == "" {
		return nil
	}
	// The model's identity: a checkpoint is recovered only by the spec and
	// configuration it was written for.
	h := sha256.New()
	for _, p := range []string{spec, cfgPath} {
		b, err := os.ReadFile(p)
		if err != nil {
			return &ExitError{Code: check.ExitError, Err: fmt.Errorf("tlc check: %v", err)}
		}
		fmt.Fprintf(h, "%d\n", len(b))
		h.Write(b)
	}
	fmt.Fprintf(h, "%q", s.consts)
	ck := check.Checkpointing{Every: time.Duration(s.checkpoint) * time.Minute, Levels: s.checkpointLevels,
		Gzip: s.gzip, Identity: hex.EncodeToString(h.Sum(nil))}
	if s.recover != "" {
		opt.Recover = s.recover
		if !s.jsonOut {
			opt.Recovered = out.Recovered
		}
	}
	if s.checkpoint > 0 || s.checkpointLevels > 0 {
		switch {
		case s.recover != "":
			// As TLC: the run goes on in the recovered run's directory.
			ck.Dir = s.recover
			if st, err := os.Stat(s.recover); err == nil && !st.IsDir() {
				ck.Dir = filepath.Dir(s.recover)
			}
		case s.metadir != "":
			ck.Dir = s.metadir
		default:
			ck.Dir = filepath.Join(filepath.Dir(spec), "states", time.Now().Format("06-01-02-15-04-05"))
		}
		if !s.jsonOut {
			ck.Start, ck.Done = out.CheckpointStart, out.CheckpointDone
		}
		if s.killAfterCheckpoint {
			done := ck.Done
			ck.Done = func(dir string, p check.Progress) {
				if done != nil {
					done(dir, p)
				}
				killSelf()
			}
		}
	}
	opt.Checkpoint = ck
	return nil
}

// runSimulate generates random behaviours (-simulate) until num=N of
// them are done, a violation is found or the run is interrupted.
func runSimulate(out *output.Printer, m *tlc.Model, s *checkSettings, workers int) error {
	out.StartingSimulation()
	stop := make(chan struct{})
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	defer signal.Stop(sig)
	var once sync.Once
	go func() {
		if _, ok := <-sig; ok {
			once.Do(func() { close(stop) })
		}
	}()
	opt := check.SimOptions{Seed: s.seed, Workers: workers, Depth: s.depth, Traces: s.traces, Stop: stop}
	if !s.jsonOut {
		opt.Progress = out.SimProgress
		opt.Branches = out.Branches
		opt.InitStart = out.ComputingInit
	}
	res := tlc.Simulate(m, opt)
	if s.jsonOut {
		out.SimResultJSON(res, s.seed)
	} else {
		out.SimResult(res, s.seed)
	}
	if res.ExitCode != 0 {
		return &ExitError{Code: res.ExitCode, Err: fmt.Errorf("")}
	}
	return nil
}

// every calls f every d until the returned function is called, which
// returns once f is not running.
func every(d time.Duration, f func()) func() {
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(d)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				f()
			}
		}
	}()
	return func() { close(done); <-finished }
}

// killSelf ends the process as `kill -9` would (SIGKILL on Unix), for the
// tests of -recover.
func killSelf() {
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		_ = p.Kill()
	}
	select {} // the signal is on its way
}
