package campaign

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/record"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// Only the etcdraft adapter's bugs that the system's own oracles see, and
// that are not hangs, become Go tests; the others are refused by name.
func TestGoTestRefusesWhatATestCannotShow(t *testing.T) {
	in := &schedule.Input{Steps: []schedule.Step{{Process: 0, Action: schedule.Timeout}}}
	export := func(adapter, kind string) *BugExport {
		return &BugExport{Bug: &record.BugRecord{ID: "B3", Kind: kind, Signature: kind + ": x", Input: in}, Input: in, Adapter: adapter}
	}
	_, err := export("microbench", "panic").GoTest()
	require.ErrorContains(t, err, "only the etcdraft adapter's bugs become Go tests; B3 is a bug of the microbench adapter")
	_, err = export("etcdraft", "divergence").GoTest()
	require.ErrorContains(t, err, "B3 is a divergence, which only the model sees")
	e := export("etcdraft", "spec-divergence")
	e.SpecTrace = []byte("{}\n")
	_, err = e.GoTest()
	require.ErrorContains(t, err, "which only the maintainers' spec sees")
	_, err = export("etcdraft", string(schedule.FailureHang)).GoTest()
	require.ErrorContains(t, err, "B3 is a hang")
}

// The files for people: the input naming its system, the README with the
// header and how to replay it, and the process adapter's cluster file.
func TestExportFiles(t *testing.T) {
	in := &schedule.Input{Steps: []schedule.Step{{Process: 0, Action: schedule.Timeout}}}
	e := &BugExport{Bug: &record.BugRecord{ID: "B1", Kind: "panic", Message: "it broke", Input: in}, Input: in,
		Adapter: "microbench", Config: json.RawMessage(`{"workers":3}`), Header: []HeaderLine{{Key: "bug", Value: "B1"}}}
	files := e.Files("out")
	require.Len(t, files, 2)
	got, sys, err := schedule.DecodeInputFile(files["input.json"])
	require.NoError(t, err)
	require.Equal(t, in, got)
	require.Equal(t, "microbench", sys.Adapter)
	readme := string(files["README.md"])
	require.True(t, strings.HasPrefix(readme, "# Bug B1 (panic)\n\nit broke\n\n```\nbug:  B1\n```\n"), readme)
	require.Contains(t, readme, "modelfuzz replay input.json")

	e.Adapter, e.Cluster = "process", []byte(`{"replicas":[]}`)
	files = e.Files("out")
	require.Equal(t, "{\"replicas\":[]}\n", string(files["cluster.json"]))
	require.Contains(t, string(files["README.md"]), "modelfuzz replay --adapter process --cluster cluster.json input.json")
}
