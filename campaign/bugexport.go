package campaign

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/modelfuzz/modelfuzz/fuzzer"
	"github.com/modelfuzz/modelfuzz/internal/buildinfo"
	"github.com/modelfuzz/modelfuzz/models"
	"github.com/modelfuzz/modelfuzz/record"
	"github.com/modelfuzz/modelfuzz/repro"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// BugExport is a bug ready to be written out for people who do not run
// modelfuzz: what the export's files need, whether it comes from a corpus
// or from an input file.
type BugExport struct {
	Bug     *record.BugRecord
	Input   *schedule.Input
	Adapter string
	Config  []byte
	Header  []HeaderLine
	// Cluster is the process adapter's cluster file (nil for the others).
	Cluster []byte
	// SpecTrace is the library's own trace of the input, as upstream's
	// tla/validate.sh reads it (nil unless the campaign validated it,
	// --model etcdraft.tla), of SpecEvents events.
	SpecTrace  []byte
	SpecEvents int
	// Model and ModelConfig are the campaign's model: input.json names
	// them, and the spec trace is checked against them.
	Model       string
	ModelConfig string
}

// ExportStoredBug prepares bug id of the campaign stored in dir: its
// minimized input (original: the input that found it), with the library's
// own trace when the campaign validated it.
func ExportStoredBug(dir, id string, original bool, timeout time.Duration) (*BugExport, error) {
	env, err := OpenEnvReadOnly(dir, nil)
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
	e := &BugExport{Bug: b, Input: in, Adapter: env.Settings.Adapter, Config: env.Settings.AdapterConfig,
		Model: env.Settings.Model, ModelConfig: env.Settings.ModelConfig, Header: env.ReportHeader(b, in, which)}
	if e.Adapter == "process" {
		e.Cluster = env.Settings.AdapterConfig
	}
	if models.IsEtcdraftSpec(env.Settings.Model) {
		events, _, err := env.SpecTraceEvents(in, timeout)
		if err != nil {
			return nil, fmt.Errorf("bugs export %s: the library's trace: %v", b.ID, err)
		}
		if e.SpecTrace, err = SpecTraceFile(events); err != nil {
			return nil, fmt.Errorf("bugs export %s: %v", b.ID, err)
		}
		e.SpecEvents = len(events)
	}
	return e, nil
}

// ExportInputFile replays an input file on the system af describes (the
// flags fs gave, for the replay command); the first failure of the
// system's own oracles is the bug.
func ExportInputFile(file string, af SystemFlags, fs *pflag.FlagSet, timeout time.Duration) (*BugExport, error) {
	in, _, err := schedule.ReadInputFile(file)
	if err != nil {
		if !fileExists(file) {
			return nil, fmt.Errorf("%v (give an input file, or --corpus DIR and a bug id)", err)
		}
		return nil, err
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
	b := &record.BugRecord{ID: "B1", Kind: string(f.Kind), Signature: f.Signature, Message: f.Message, Step: f.Step, Input: in}
	var flags []string
	fs.Visit(func(f *pflag.Flag) {
		if f.Name == "adapter" || IsSystemFlag(f.Name) {
			flags = append(flags, "--"+f.Name+" "+f.Value.String())
		}
	})
	replay := strings.TrimSpace("modelfuzz replay " + strings.Join(flags, " ") + " " + file)
	adapter := sys.Adapter.Name
	e := &BugExport{Bug: b, Input: in, Adapter: adapter, Config: sys.Config(), Header: []HeaderLine{
		{Key: "bug", Value: fmt.Sprintf("(%s) %s", f.Kind, f.Signature)},
		{Key: "replayed by", Value: buildinfo.Read().String()},
		{Key: "system", Value: SystemText(adapter)},
		{Key: "adapter configuration", Value: CompactJSON(sys.Config())},
		{Key: "input", Value: fmt.Sprintf("%s, %d steps: %s", file, in.Len(), CompactJSON(schedule.EncodeInput(in)))},
		{Key: "replay", Value: replay},
	}}
	if adapter == "process" {
		e.Cluster = sys.Config()
	}
	return e, nil
}

// GoTest is the bug as a self-contained Go test of the library (the
// etcdraft adapter's bugs that the system's own oracles see): the files
// repro.GoTest writes.
func (e *BugExport) GoTest() (map[string][]byte, error) {
	b := e.Bug
	if e.Adapter != "etcdraft" {
		return nil, fmt.Errorf("bugs export --go-test: only the etcdraft adapter's bugs become Go tests; %s is a bug of the %s adapter (--out DIR writes its input and replay command)", b.ID, e.Adapter)
	}
	if schedule.FailureKind(b.Kind).FromModel() {
		if e.SpecTrace != nil {
			return nil, fmt.Errorf("bugs export --go-test: %s is a %s, which only the maintainers' spec sees; a Go test of the library alone cannot show it (--out DIR writes the library's trace, trace.ndjson, and the validate.sh and TLC command lines that reproduce it)", b.ID, b.Kind)
		}
		return nil, fmt.Errorf("bugs export --go-test: %s is a %s, which only the model sees; a Go test of the library alone cannot show it (--out DIR writes its input and replay command)", b.ID, b.Kind)
	}
	if b.Kind == string(schedule.FailureHang) {
		return nil, fmt.Errorf("bugs export --go-test: %s is a hang, which the Go test cannot tell from a slow run", b.ID)
	}
	var lines []string
	for _, h := range e.Header {
		lines = append(lines, h.Key+": "+h.Value)
	}
	files, err := repro.GoTest(repro.Bug{ID: b.ID, Kind: b.Kind, Signature: b.Signature, Message: b.Message,
		Config: e.Config, Input: e.Input, Header: lines})
	if err != nil {
		return nil, fmt.Errorf("bugs export --go-test: %v", err)
	}
	return files, nil
}

// Files are the files of the bug written into dir for people: input.json
// (the input, with the system it ran on), README.md (the report header and
// how to replay it), the process adapter's cluster.json, and the library's
// trace.ndjson with the command lines that check it.
func (e *BugExport) Files(dir string) map[string][]byte {
	files := map[string][]byte{"input.json": schedule.EncodeInputFor(e.Input, &schedule.InputSystem{Adapter: e.Adapter, Config: e.Config, Model: e.Model, ModelConfig: e.ModelConfig})}
	var readme strings.Builder
	fmt.Fprintf(&readme, "# Bug %s (%s)\n\n%s\n\n```\n%s```\n", e.Bug.ID, e.Bug.Kind, e.Bug.Message, HeaderText(e.Header))
	if e.Cluster != nil {
		files["cluster.json"] = append(e.Cluster, '\n')
		readme.WriteString("\nThe cluster file is cluster.json; replay the input without the corpus:\n\n" +
			"    modelfuzz replay --adapter process --cluster cluster.json input.json\n")
	} else {
		readme.WriteString("\ninput.json names its system" + map[bool]string{true: " and the model it was checked against", false: ""}[e.Model != ""] +
			": replay it without the corpus with\n\n    modelfuzz replay input.json\n")
	}
	if e.SpecTrace != nil {
		trace := filepath.Join(dir, "trace.ndjson")
		files["trace.ndjson"] = e.SpecTrace
		v := SpecValidationFor(e.Model, e.ModelConfig, trace)
		fmt.Fprintf(&readme, "\nThe library's own trace of this input (its with_tla trace points) is trace.ndjson: %d events, line k\n"+
			"is event k. It is what modelfuzz's trace validation checked against the maintainers'\n"+
			"spec (%s, %s), in the format their tla/validate.sh reads.\n"+
			"Check it with validate.sh (it downloads tla2tools.jar and CommunityModules-deps.jar and\n"+
			"sorts the trace file in place; the spec's folder is copied, the module cache is read-only):\n\n    %s\n\n"+
			"or with TLC directly, the two jars in the current directory (TLC writes states/ and\n"+
			"*_TTrace_* files beside the spec, so it runs in a copy of the spec's folder too):\n\n    %s\n\n"+
			"or with modelfuzz's engine:\n\n    %s\n",
			e.SpecEvents, v.Spec, v.Config, v.ValidateSh, v.TLC, v.Modelfuzz)
	}
	files["README.md"] = []byte(readme.String())
	return files
}

// WriteFiles writes files (name -> contents) into dir, creating it.
func WriteFiles(dir string, files map[string][]byte) error {
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
