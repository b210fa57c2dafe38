package campaign

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/models"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// The trace file of a bug is what trace validation consumed, line for
// line, and upstream's tla/validate.sh, which sorts a trace by the text
// after each line's second ':' before TLC reads it, keeps its order.
// The events are the library's own, from the module's example trace.
func TestSpecTraceFileKeepsEventsAndTheirOrder(t *testing.T) {
	example := filepath.Join(models.RaftTLADir(), "example.ndjson")
	data, err := os.ReadFile(example)
	if err != nil {
		t.Skipf("etcd raft's tla/ folder is not in the module cache: %v", err)
	}
	var events []schedule.SpecEvent
	var raw []json.RawMessage
	for i, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var l struct {
			Event json.RawMessage `json:"event"`
		}
		require.NoError(t, json.Unmarshal(line, &l))
		// As the adapter records them (adapters/etcdraft/spectrace.go).
		raw = append(raw, l.Event)
		events = append(events, schedule.SpecEvent{Step: i / 7, JSON: append([]byte(`{"tag":"trace","event":`), append(l.Event, '}')...)})
	}
	require.Greater(t, len(events), 1000)

	out, err := SpecTraceFile(events)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	require.Len(t, lines, len(events))
	for i, line := range lines {
		var l struct {
			Tag   string          `json:"tag"`
			Step  *int            `json:"step"`
			Event json.RawMessage `json:"event"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &l), "line %d", i+1)
		require.Equal(t, "trace", l.Tag)
		require.Equal(t, string(raw[i]), string(l.Event), "line %d holds event %d as consumed", i+1, i+1)
		require.NotNil(t, l.Step)
		require.Equal(t, events[i].Step, *l.Step)
	}

	// validate.sh: sed -E 's/^[^{]+//' (nothing before the '{'), then
	// sort -t":" -k 3: by the text from the third ':'-field on.
	key := func(line string) string {
		f := strings.SplitN(line, ":", 3)
		return f[len(f)-1]
	}
	for _, line := range lines {
		require.True(t, strings.HasPrefix(line, "{"))
	}
	sorted := slices.Clone(lines)
	slices.SortFunc(sorted, func(a, b string) int { return strings.Compare(key(a), key(b)) })
	require.Equal(t, lines, sorted, "sorted as validate.sh sorts, the lines keep their order")
	if sortBin, err := exec.LookPath("sort"); err == nil {
		for _, locale := range []string{"C", "C.UTF-8"} {
			cmd := exec.Command(sortBin, "-t:", "-k", "3")
			cmd.Env = append(os.Environ(), "LC_ALL="+locale)
			cmd.Stdin = bytes.NewReader(out)
			got, err := cmd.Output()
			require.NoError(t, err)
			require.Equal(t, string(out), string(got), "sort -t: -k 3 with LC_ALL=%s keeps the order", locale)
		}
	}

	// The first line, and what is not a trace line.
	first := bufio.NewScanner(bytes.NewReader(out))
	require.True(t, first.Scan())
	require.True(t, strings.HasPrefix(first.Text(), `{"level":"debug","ts":1000000001,"msg":"trace","tag":"trace","step":0,"event":{`), first.Text())
	_, err = SpecTraceFile([]schedule.SpecEvent{{JSON: []byte(`{"event":{}}`)}})
	require.ErrorContains(t, err, "event 1 of the system's trace is not a trace line")
}

// The command lines a maintainer runs: validate.sh and TLC on a copy of the
// spec's folder (the module cache is read-only, and TLC writes states/ and
// its *_TTrace_* files beside the spec), and modelfuzz's engine, with the
// trace's absolute path.
func TestSpecValidationCommands(t *testing.T) {
	v := SpecValidationFor("etcdraft.tla", "", "out/trace.ndjson")
	abs, err := filepath.Abs("out/trace.ndjson")
	require.NoError(t, err)
	dir := models.RaftTLADir()
	require.Equal(t, filepath.Join(dir, "Traceetcdraft.tla"), v.Spec)
	require.Equal(t, filepath.Join(dir, "Traceetcdraft.cfg"), v.Config)
	require.Equal(t, `D=$(mktemp -d) && cp -r `+dir+`/. "$D" && chmod -R u+w "$D" && cd "$D" && bash validate.sh -s ./Traceetcdraft.tla -c ./Traceetcdraft.cfg `+abs, v.ValidateSh)
	require.Equal(t, `J=$PWD && D=$(mktemp -d) && cp -r `+dir+`/. "$D" && chmod -R u+w "$D" && cd "$D" && JSON=`+abs+
		` java -XX:+UseParallelGC -cp "$J/tla2tools.jar:$J/CommunityModules-deps.jar" tlc2.TLC -config ./Traceetcdraft.cfg ./Traceetcdraft.tla -lncheck final`, v.TLC)
	require.Equal(t, "modelfuzz tlc validate "+abs, v.Modelfuzz)

	v = SpecValidationFor("/x/Traceetcdraft.tla", "/y/T.cfg", "/t.ndjson")
	require.Contains(t, v.ValidateSh, "cp -r /x/. ")
	require.Contains(t, v.ValidateSh, "-c /y/T.cfg /t.ndjson")
	require.Contains(t, v.TLC, "cp -r /x/. ")
	require.Contains(t, v.TLC, "JSON=/t.ndjson java")
	require.Contains(t, v.TLC, "-config /y/T.cfg ./Traceetcdraft.tla")
	require.Equal(t, "modelfuzz tlc validate --spec /x/Traceetcdraft.tla --config /y/T.cfg /t.ndjson", v.Modelfuzz)
}
