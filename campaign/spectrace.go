package campaign

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/modelfuzz/modelfuzz/models"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// specTraceTS is the "ts" of a trace file's first line: every line's has
// as many digits, so that ordering the lines by text orders them by ts.
const specTraceTS = 1_000_000_001

// SpecTraceFile is the system's own trace (etcd raft's TracingEvents, as
// trace validation consumed them) as the maintainers' tla/validate.sh
// reads a trace: one JSON object a line, shaped as the library's with_tla
// logger writes through zap ({"level","ts","msg","tag":"trace","event"}).
// validate.sh sorts a trace by the text after each line's second ':' (a
// zap line's timestamp) before TLC reads it, so "ts" numbers the lines
// with a fixed number of digits, from specTraceTS, and the sort keeps their
// order. "step" is the schedule step the event happened in, numbered as
// the timeline numbers them; the trace spec reads "tag" and "event" only.
func SpecTraceFile(events []schedule.SpecEvent) ([]byte, error) {
	var b bytes.Buffer
	for i, e := range events {
		var line map[string]json.RawMessage
		if err := json.Unmarshal(e.JSON, &line); err != nil || string(line["tag"]) != `"trace"` || len(line["event"]) == 0 {
			return nil, fmt.Errorf("event %d of the system's trace is not a trace line {\"tag\":\"trace\",\"event\":...}: %.80s", i+1, e.JSON)
		}
		fmt.Fprintf(&b, `{"level":"debug","ts":%d,"msg":"trace","tag":"trace","step":%d,`, specTraceTS+i, e.Step)
		// What the adapter notes beside the event ("duplicate": true),
		// which the trace spec does not read.
		for _, k := range slices.Sorted(maps.Keys(line)) {
			if k != "tag" && k != "event" {
				fmt.Fprintf(&b, "%q:%s,", k, line[k])
			}
		}
		fmt.Fprintf(&b, `"event":%s}`+"\n", line["event"])
	}
	return b.Bytes(), nil
}

// SpecTraceEvents replays in as the campaign ran it and returns the
// system's own trace, with the execution. It is an error when the
// campaign did not record one (only --model etcdraft.tla does).
func (e *Env) SpecTraceEvents(in *schedule.Input, timeout time.Duration) ([]schedule.SpecEvent, *schedule.Execution, error) {
	if e.System.TraceSpec == nil || !models.IsEtcdraftSpec(e.Settings.Model) {
		return nil, nil, fmt.Errorf("corpus %s: the campaign did not validate the system's own trace (only --model etcdraft.tla records it)", e.Dir)
	}
	chk, err := e.Checker(timeout)
	if err != nil {
		return nil, nil, err
	}
	ex, _, err := chk.Run(in)
	if err != nil {
		return nil, nil, fmt.Errorf("replay: %v", err)
	}
	if len(ex.Spec) == 0 {
		return nil, nil, fmt.Errorf("the replay recorded no trace of the system's own (a build without the with_tla tag?)")
	}
	return ex.Spec, ex, nil
}

// SpecValidation says how to check a trace file written by SpecTraceFile
// with TLC as the maintainers do: the trace spec and cfg the campaign
// validated with, and the command lines.
type SpecValidation struct {
	Spec, Config string // paths
	// ValidateSh runs upstream's tla/validate.sh (which downloads
	// tla2tools.jar and CommunityModules-deps.jar, sorts the trace in
	// place, then runs TLC) on a writable copy of the spec's folder.
	ValidateSh string
	// TLC runs TLC directly, with the two jars in the current directory,
	// on a writable copy of the spec's folder.
	TLC string
	// Modelfuzz is the same check with modelfuzz's own engine.
	Modelfuzz string
}

// SpecValidationFor is the SpecValidation of a campaign with --model
// model (and --model-config config) for the trace file trace.
func SpecValidationFor(model, config, trace string) SpecValidation {
	spec := models.EtcdraftTraceSpec(model)
	if config == "" {
		config = strings.TrimSuffix(spec, ".tla") + ".cfg"
	}
	abs := trace
	if a, err := filepath.Abs(trace); err == nil {
		abs = a
	}
	dir := filepath.Dir(spec)
	v := SpecValidation{Spec: spec, Config: config}
	// The module cache is read-only, and TLC writes next to the spec.
	cfgArg := config
	if filepath.Dir(config) == dir {
		cfgArg = "./" + filepath.Base(config)
	} else if a, err := filepath.Abs(config); err == nil {
		cfgArg = a
	}
	v.ValidateSh = fmt.Sprintf(`D=$(mktemp -d) && cp -r %s/. "$D" && chmod -R u+w "$D" && cd "$D" && bash validate.sh -s ./%s -c %s %s`,
		dir, filepath.Base(spec), cfgArg, abs)
	// TLC writes states/ and the *_TTrace_* files of a failed trace beside
	// the spec: it runs in a copy of the folder too, the jars staying where
	// the command starts.
	v.TLC = fmt.Sprintf(`J=$PWD && D=$(mktemp -d) && cp -r %s/. "$D" && chmod -R u+w "$D" && cd "$D" && JSON=%s java -XX:+UseParallelGC -cp "$J/tla2tools.jar:$J/CommunityModules-deps.jar" tlc2.TLC -config %s ./%s -lncheck final`,
		dir, abs, cfgArg, filepath.Base(spec))
	modelFlag := ""
	if filepath.Base(model) == "Traceetcdraft.tla" {
		modelFlag = " --spec " + spec
	}
	if config != strings.TrimSuffix(spec, ".tla")+".cfg" {
		modelFlag += " --config " + config
	}
	v.Modelfuzz = "modelfuzz tlc validate" + modelFlag + " " + abs
	return v
}
