package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/modelfuzz/modelfuzz/campaign"
	"github.com/modelfuzz/modelfuzz/fuzzer"
	"github.com/modelfuzz/modelfuzz/internal/buildinfo"
	"github.com/modelfuzz/modelfuzz/models"
	"github.com/modelfuzz/modelfuzz/record"
	"github.com/modelfuzz/modelfuzz/repro"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// exported is a bug ready to be written out: what the export's files
// need, whether it comes from a corpus or from an input file.
type exported struct {
	bug     *record.BugRecord
	in      *schedule.Input
	adapter string
	config  []byte
	header  []campaign.HeaderLine
	// cluster is the process adapter's cluster file ("" for the others).
	cluster []byte
	// specTrace is the library's own trace of the input, as upstream's
	// tla/validate.sh reads it (nil unless the campaign validated it,
	// --model etcdraft.tla), and how to check it.
	specTrace  []byte
	specEvents int
	model      string
	modelCfg   string
}

func newBugsExportCmd(dir *string) *cobra.Command {
	var (
		goTest, out string
		original    bool
		af          campaign.SystemFlags
		timeout     time.Duration
	)
	cmd := &cobra.Command{
		Use:   "export (--corpus DIR BUG_ID | [adapter flags] INPUT.json) (--go-test DIR | --out DIR)",
		Short: "Write a bug's reproducer for people who do not run modelfuzz",
		Long: `Write what a maintainer needs to reproduce a bug without modelfuzz.

--go-test DIR (etcdraft adapter): a self-contained Go test, the standard
library and go.etcd.io/raft/v3 only, that runs the bug's minimized schedule
through the same application of the library the fuzzer ran (carried along
as harness_test.go) and fails with the bug's signature:

  cd DIR && go mod init x && go get go.etcd.io/raft/v3@v3.7.0 && go test

--out DIR (any adapter): README.md with the report header (versions,
settings, replay command), input.json (the minimized input, with the system
it ran on), for the process adapter cluster.json, the cluster file, and for
a campaign that validated the library's own trace (--model etcdraft.tla,
e.g. a spec-divergence) trace.ndjson, that trace as the maintainers'
tla/validate.sh reads it, with the validate.sh and TLC command lines that
check it against their Traceetcdraft.tla.

The bug is a stored one (--corpus DIR BUG_ID) or the failure that replaying
an input file shows (INPUT.json with the adapter flags it ran with).`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if goTest == "" && out == "" {
				return fmt.Errorf("bugs export: say where to write: --go-test DIR or --out DIR")
			}
			var (
				e   *exported
				err error
			)
			if *dir != "" {
				e, err = exportFromCorpus(*dir, args[0], original, timeout)
			} else {
				e, err = exportFromFile(cmd.Flags(), af, args[0], timeout)
			}
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if out != "" {
				if err := writeExport(w, out, e); err != nil {
					return err
				}
			}
			if goTest != "" {
				if err := writeGoTest(w, goTest, e); err != nil {
					return err
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&goTest, "go-test", "", "write a Go test that reproduces the bug into this directory (etcdraft)")
	cmd.Flags().StringVar(&out, "out", "", "write the input, the cluster file and the report header into this directory")
	cmd.Flags().BoolVar(&original, "original", false, "export the input that found the bug, not the minimized one")
	cmd.Flags().DurationVar(&timeout, "exec-timeout", 10*time.Second, "stop a replay that runs longer (a hang)")
	af.Register(cmd.Flags())
	return cmd
}

func exportFromCorpus(dir, id string, original bool, timeout time.Duration) (*exported, error) {
	env, err := campaign.OpenEnv(dir, nil)
	if err != nil {
		return nil, err
	}
	defer env.Close()
	b, err := env.Store.Bug(id)
	if err != nil {
		return nil, err
	}
	in, which := b.Reproducer(), "minimized"
	if original || b.Minimized == nil {
		in, which = b.Input, "original (not minimized)"
	}
	e := &exported{bug: b, in: in, adapter: env.Settings.Adapter, config: env.Settings.AdapterConfig,
		header: env.ReportHeader(b, in, which)}
	if e.adapter == "process" {
		e.cluster = env.Settings.AdapterConfig
	}
	if models.IsEtcdraftSpec(env.Settings.Model) {
		events, _, err := env.SpecTraceEvents(in, timeout)
		if err != nil {
			return nil, fmt.Errorf("bugs export %s: the library's trace: %v", b.ID, err)
		}
		if e.specTrace, err = campaign.SpecTraceFile(events); err != nil {
			return nil, fmt.Errorf("bugs export %s: %v", b.ID, err)
		}
		e.specEvents, e.model, e.modelCfg = len(events), env.Settings.Model, env.Settings.ModelConfig
	}
	return e, nil
}

// exportFromFile replays an input file on the system the flags describe;
// the first failure of the system's own oracles is the bug.
func exportFromFile(fs *pflag.FlagSet, af campaign.SystemFlags, file string, timeout time.Duration) (*exported, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("bugs export: %v (give an input file, or --corpus DIR and a bug id)", err)
	}
	in, err := schedule.DecodeInput(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	sys, err := af.Open(nil)
	if err != nil {
		return nil, err
	}
	defer sys.Close()
	ex, _, err := fuzzer.NewChecker(sys, nil, timeout).Run(in)
	if err != nil {
		return nil, fmt.Errorf("replay of %s: %v", file, err)
	}
	if len(ex.Failures) == 0 {
		return nil, fmt.Errorf("%s shows no failure on this system: there is no bug to export (the adapter flags must be those it ran with)", file)
	}
	f := ex.Failures[0]
	b := &record.BugRecord{ID: "B1", Kind: f.Kind, Signature: f.Signature, Message: f.Message, Step: f.Step, Input: in}
	var flags []string
	fs.Visit(func(f *pflag.Flag) {
		if f.Name == "adapter" || campaign.IsSystemFlag(f.Name) {
			flags = append(flags, "--"+f.Name+" "+f.Value.String())
		}
	})
	replay := strings.TrimSpace("modelfuzz replay " + strings.Join(flags, " ") + " " + file)
	adapter := sys.Adapter.Name
	e := &exported{bug: b, in: in, adapter: adapter, config: sys.Config(), header: []campaign.HeaderLine{
		{Key: "bug", Value: fmt.Sprintf("(%s) %s", f.Kind, f.Signature)},
		{Key: "replayed by", Value: buildinfo.Read().String()},
		{Key: "system", Value: campaign.SystemText(adapter)},
		{Key: "adapter configuration", Value: campaign.CompactJSON(sys.Config())},
		{Key: "input", Value: fmt.Sprintf("%s, %d steps: %s", file, in.Len(), campaign.CompactJSON(schedule.EncodeInput(in)))},
		{Key: "replay", Value: replay},
	}}
	if adapter == "process" {
		e.cluster = sys.Config()
	}
	return e, nil
}

// modelKinds are the bugs only the model sees: a Go test of the system
// alone cannot show them.
var modelKinds = []string{"divergence", "model-invariant", "spec-divergence"}

func writeGoTest(w io.Writer, dir string, e *exported) error {
	b := e.bug
	if e.adapter != "etcdraft" {
		return fmt.Errorf("bugs export --go-test: only the etcdraft adapter's bugs become Go tests; %s is a bug of the %s adapter (--out DIR writes its input and replay command)", b.ID, e.adapter)
	}
	for _, k := range modelKinds {
		if b.Kind == k {
			if e.specTrace != nil {
				return fmt.Errorf("bugs export --go-test: %s is a %s, which only the maintainers' spec sees; a Go test of the library alone cannot show it (--out DIR writes the library's trace, trace.ndjson, and the validate.sh and TLC command lines that reproduce it)", b.ID, b.Kind)
			}
			return fmt.Errorf("bugs export --go-test: %s is a %s, which only the model sees; a Go test of the library alone cannot show it (--out DIR writes its input and replay command)", b.ID, b.Kind)
		}
	}
	if b.Kind == schedule.KindHang {
		return fmt.Errorf("bugs export --go-test: %s is a hang, which the Go test cannot tell from a slow run", b.ID)
	}
	var lines []string
	for _, h := range e.header {
		lines = append(lines, h.Key+": "+h.Value)
	}
	files, err := repro.GoTest(repro.Bug{ID: b.ID, Kind: b.Kind, Signature: b.Signature, Message: b.Message,
		Config: e.config, Input: e.in, Header: lines})
	if err != nil {
		return fmt.Errorf("bugs export --go-test: %v", err)
	}
	if err := writeFiles(dir, files); err != nil {
		return err
	}
	fmt.Fprintf(w, "wrote a Go test of %s to %s (%s, %s)\nrun it: cd %s && go mod init x && go get go.etcd.io/raft/v3@v3.7.0 && go test\n",
		b.ID, dir, repro.TestFile, repro.HarnessFile, dir)
	return nil
}

func writeExport(w io.Writer, dir string, e *exported) error {
	files := map[string][]byte{"input.json": schedule.EncodeInputFor(e.in, &schedule.InputSystem{Adapter: e.adapter, Config: e.config})}
	var readme strings.Builder
	fmt.Fprintf(&readme, "# Bug %s (%s)\n\n%s\n\n```\n%s```\n", e.bug.ID, e.bug.Kind, e.bug.Message, campaign.HeaderText(e.header))
	if e.cluster != nil {
		files["cluster.json"] = append(e.cluster, '\n')
		readme.WriteString("\nThe cluster file is cluster.json; replay the input without the corpus:\n\n" +
			"    modelfuzz replay --adapter process --cluster cluster.json input.json\n")
	} else {
		readme.WriteString("\ninput.json names its system: replay it without the corpus with\n\n    modelfuzz replay input.json\n")
	}
	if e.specTrace != nil {
		trace := filepath.Join(dir, "trace.ndjson")
		files["trace.ndjson"] = e.specTrace
		v := campaign.SpecValidationFor(e.model, e.modelCfg, trace)
		fmt.Fprintf(&readme, "\nThe library's own trace of this input (its with_tla trace points) is trace.ndjson: %d events, line k\n"+
			"is event k. It is what modelfuzz's trace validation checked against the maintainers'\n"+
			"spec (%s, %s), in the format their tla/validate.sh reads.\n"+
			"Check it with validate.sh (it downloads tla2tools.jar and CommunityModules-deps.jar and\n"+
			"sorts the trace file in place; the spec's folder is copied, the module cache is read-only):\n\n    %s\n\n"+
			"or with TLC directly, the two jars in the current directory:\n\n    %s\n\n"+
			"or with modelfuzz's engine:\n\n    %s\n",
			e.specEvents, v.Spec, v.Config, v.ValidateSh, v.TLC, v.Modelfuzz)
	}
	files["README.md"] = []byte(readme.String())
	if err := writeFiles(dir, files); err != nil {
		return err
	}
	fmt.Fprintf(w, "wrote %s's input and report header to %s\n", e.bug.ID, dir)
	if e.specTrace != nil {
		fmt.Fprintf(w, "wrote the library's trace (%d events) to %s; README.md has the validate.sh and TLC command lines that check it\n",
			e.specEvents, filepath.Join(dir, "trace.ndjson"))
	}
	return nil
}

func writeFiles(dir string, files map[string][]byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return errors.New(err.Error())
		}
	}
	return nil
}
