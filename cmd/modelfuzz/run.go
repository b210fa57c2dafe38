package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/modelfuzz/modelfuzz/campaign"
	"github.com/modelfuzz/modelfuzz/fuzzer"
	"github.com/modelfuzz/modelfuzz/internal/cmdline"
)

// runFlags are run's command line: the campaign's settings, and what
// this process does around the campaign.
type runFlags struct {
	campaign.Settings
	jsonOut     bool
	logLevel    string
	cpuProfile  string
	memoryLimit int64
	uncovered   string // campaign.Uncovered
	httpAddr    string // live.go
	failOnBug   bool
}

func newRunCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run a fuzzing campaign (continues the one in --corpus, if any)",
		Long: `Run a fuzzing campaign on a system under test.

Every iteration takes an input (a schedule of steps) from the queue, executes
it on the system and measures its coverage. An input that reaches coverage
not seen before is kept in the corpus and --mutations mutants per new item
are queued. The queue is refilled with --seed-population random inputs when
it runs empty and every --reseed-every iterations.

The campaign lives in --corpus DIR: running the same command again continues
it (--iterations counts the campaign's total); --fresh starts over. Ctrl-C
(or SIGTERM) finishes the executions in flight, stores everything and
prints a summary, within seconds whatever the campaign is doing: what is
still running 2s after the signal is stopped and not recorded (the next
run does it again). A second Ctrl-C exits at once, losing only what was not
stored yet.

For unattended runs: --parallel system instances execute the inputs of a
batch at once (the campaign's results do not depend on it); an execution
longer than --exec-timeout is stopped and recorded as a hang bug; a stats
snapshot (coverage, corpus, bugs, executions per second, memory) goes into
the corpus every --stats-every; and every new bug is minimized in the
background within --minimize-tries and --minimize-time ("modelfuzz bugs"
lists them). A corpus that can no longer be written stops the campaign
within seconds with one line saying why and how many executions were not
stored, and a non-zero exit: its directory removed, replaced or made
read-only, its lock file removed, its disk with less than 256 MiB free
(before the corpus could be damaged), a write that fails.

With --model, every execution is also mapped onto a TLA+ model and the
abstract model states it reaches are measured (model_states) for every
strategy; --strategy model (the default then) keeps inputs that reach new
ones. The model engine runs as a supervised subprocess (--tlc subprocess,
the default), in this process (--tlc inproc), or is an already running
sidecar (--tlc-url, token in $MODELFUZZ_TLC_TOKEN).

Strategies: model, line (a coverage build: make cover), trace, random. The
online strategies pct, pctcp, pos, dpos, tapct and rounds build each input
while it runs, from the events the system has enabled at every step (the
messages waiting, the timers, requests and crashes the harness may inject);
what they pick is recorded as an ordinary input, which replays and minimizes
like any other. They keep no corpus: each execution is a fresh sample, and
the summary lists the quantities their guarantees are stated in (events,
racy events, chains, rounds). In a
coverage build every strategy also reports lines_covered: the source lines of
the system under test (the go.etcd.io/raft/v3 packages) its executions
covered.

Progress goes to stderr: on a terminal, one status line updated in place
(iterations, executions per second, corpus, coverage, bugs, queue);
without a terminal (a pipe, a CI log, TERM=dumb), the same figures as an
INFO log line, "progress", every 10 seconds. The summary goes to stdout
(--json: one JSON object); its last line says how many new bugs this
session found.

Limits: an input has at most 10000 steps (--steps), a tick step at most
1000 ticks and a deliver step 1000 messages, an execution records at most
200000 events (it is stopped there, and is no bug), and the process's live
Go heap stays under --memory-limit: a campaign that passes it stops with
what it recorded kept.

Exit status: 0 when the campaign ran, whether or not it found bugs (a
campaign that found bugs did its job: "modelfuzz bugs" lists them), or
was interrupted (the summary says which); 3 with --fail-on-bug when this
session found a new bug (for CI: the last line names it); 1 on an error
(a bad command line, a corpus that cannot be opened or written, the
memory limit passed); 130 after a second Ctrl-C.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runCampaign(cmd, &f) },
	}
	f.register(cmd.Flags())
	return cmd
}

func (f *runFlags) register(fs *pflag.FlagSet) {
	f.Settings.Register(fs)
	fs.BoolVar(&f.jsonOut, "json", false, "print the summary as one JSON object on the last line of stdout")
	fs.StringVar(&f.httpAddr, "http", "", "serve a live status page of the campaign at this address (127.0.0.1:PORT; port 0 picks one): rates, coverage over time, the queue, the bugs with their reproducers and timelines")
	fs.StringVar(&f.logLevel, "log-level", "info", "log level: error, warn, info, debug")
	fs.StringVar(&f.cpuProfile, "cpuprofile", "", "write a Go CPU profile of the whole run to this file")
	fs.Int64Var(&f.memoryLimit, "memory-limit", 768, "soft limit of this process's Go heap in MiB: the garbage collector works harder near it and, under a limit, lets the heap grow to twice the live data between collections (0: none, Go's default collector; $GOMEMLIMIT and $GOGC win)")
	fs.BoolVar(&f.failOnBug, "fail-on-bug", false, "exit with status 3 when this run found a new bug (for CI; the default exits 0)")
	fs.StringVar(&f.uncovered, "uncovered", "", "a coverage build only: at the end, write to this file the functions of the system under test (go.etcd.io/raft/v3) no execution of the session reached, and those partially covered")
}

func runCampaign(cmd *cobra.Command, f *runFlags) (retErr error) {
	logger, err := cmdline.NewLogger(f.logLevel)
	if err != nil {
		return err
	}
	if f.cpuProfile != "" {
		stop, err := cmdline.StartCPUProfile(f.cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	if err := applyMemoryLimit("--memory-limit", f.memoryLimit); err != nil {
		return err
	}
	// The campaign stops rather than pass it (fuzzer.Limits.MemoryLimit).
	f.Settings.MemoryLimit = cmdline.MemoryLimit()
	unc, err := campaign.OpenUncovered(f.uncovered)
	if err != nil {
		return err
	}
	defer unc.Abandon()
	ln, err := listenLive(f.httpAddr)
	if err != nil {
		return err
	}
	if ln != nil {
		defer ln.Close()
	}
	prog := newProgress(os.Stderr, logger)
	var live *campaign.Live // set before the campaign runs
	hooks := campaign.Hooks{Logger: logger, Progress: func(s fuzzer.Stats) {
		prog.update(s)
		if live != nil {
			live.Progress(s)
		}
	}, Logf: func(format string, args ...any) {
		prog.clearLine()
		logger.Info(fmt.Sprintf(format, args...))
	}}
	c, err := campaign.Prepare(&f.Settings, cmd.Flags().Changed, hooks)
	if err != nil {
		return err
	}
	// Closing is bounded; a corpus that cannot write its last changes
	// fails the command. After a fault of the corpus, the fault is the
	// line shown.
	defer func() { retErr = errors.Join(retErr, c.Close()) }()
	if ln != nil {
		if live, err = campaign.NewLive(c, logger); err != nil {
			return err
		}
		stopLive := serveLive(ln, live, logger)
		defer stopLive()
		prog.clearLine()
		fmt.Fprintf(os.Stderr, "live view: http://%s/\n", ln.Addr())
	}
	if err := unc.Check(c.System.Adapter); err != nil {
		return err
	}
	ctx, stop := signalContext(logger, prog)
	defer stop()
	sum, runErr := c.Run(ctx)
	prog.done()
	if sum != nil {
		printSummary(cmd.OutOrStdout(), c.Outcome(sum), f.jsonOut)
		runErr = errors.Join(runErr, unc.Write(sum))
		if ids := campaign.NewBugIDs(sum); f.failOnBug && runErr == nil && len(ids) > 0 {
			return &exitError{exitFailed, fmt.Errorf("this run found %d new bug(s): %s (--fail-on-bug)", len(ids), strings.Join(ids, ", "))}
		}
	}
	return runErr
}

// signalContext is cancelled by the first SIGINT or SIGTERM: the campaign
// finishes the execution in flight, commits and summarizes. A second signal
// exits at once; what was committed stays in the corpus.
func signalContext(logger hclog.Logger, prog *progress) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		n := 0
		for range ch {
			n++
			prog.clearLine()
			if n == 1 {
				logger.Info("stopping after the execution in flight (signal again to exit at once)")
				cancel()
				continue
			}
			fmt.Fprintln(os.Stderr, "modelfuzz: exiting at once; committed results are kept")
			os.Exit(130)
		}
	}()
	return ctx, func() { signal.Stop(ch); cancel() }
}

// progress shows a one-line status on a terminal, and hclog lines every
// 10 seconds otherwise.
type progress struct {
	w       io.Writer
	tty     bool
	logger  hclog.Logger
	last    time.Time
	written atomic.Bool // a status line is on screen; read by the signal goroutine
}

func newProgress(w *os.File, logger hclog.Logger) *progress {
	st, err := w.Stat()
	tty := err == nil && st.Mode()&os.ModeCharDevice != 0 && os.Getenv("TERM") != "dumb"
	return &progress{w: w, tty: tty, logger: logger}
}

func (p *progress) update(s fuzzer.Stats) {
	if p.tty {
		fmt.Fprintf(p.w, "\r\x1b[K%s", campaign.StatusLine(s))
		p.written.Store(true)
		return
	}
	if time.Since(p.last) < 10*time.Second {
		return
	}
	p.last = time.Now()
	p.logger.Info("progress", campaign.ProgressArgs(s)...)
}

// clearLine makes room on a terminal for a log line.
func (p *progress) clearLine() {
	if p.written.Load() {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}

func (p *progress) done() {
	if p.written.Load() {
		fmt.Fprintln(p.w)
	}
}

// printSummary prints how the campaign ended: for people, or as one JSON
// object.
func printSummary(w io.Writer, o *campaign.Outcome, asJSON bool) {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		enc.Encode(o.JSON())
		return
	}
	fmt.Fprint(w, o.Text())
}
