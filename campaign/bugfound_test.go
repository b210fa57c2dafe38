package campaign

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/guidance"
	"github.com/modelfuzz/modelfuzz/record"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// "bugs show" shows the failure as the campaign found it, not only as the
// replay shows it: a system on real time (etcd) may not show it again.
// The whole detail goes beside the corpus, a kept trace as a file the
// mappers' golden tests read, and the text has the detail's first lines.
func TestBugShowKeepsTheFailureAsFound(t *testing.T) {
	dir := t.TempDir()
	e := &Env{Dir: dir}
	var hist strings.Builder
	hist.WriteString("history:\n  n1 step 2: put(k1, v1) -> ok @2\n  n2 step 3: get(k1) -> v9 (mod 2) @2\n")
	for i := range 40 {
		hist.WriteString("member output line " + strings.Repeat("x", i*10) + "\n")
	}
	b := &record.BugRecord{ID: "B1", Kind: string(schedule.FailureLinearizability), Detail: hist.String()}
	text := e.foundText(b)
	path := filepath.Join(dir, "B1-detail.txt")
	require.Contains(t, text, "the failure as found (its whole detail: "+path+")")
	require.Contains(t, text, "  n2 step 3: get(k1) -> v9 (mod 2) @2\n")
	require.Contains(t, text, "more line(s)")
	for _, l := range strings.Split(text, "\n") {
		require.LessOrEqual(t, len(l), 210, "a shown line is cut")
	}
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, b.Detail, string(got), "the whole detail")

	tr := schedule.Trace{
		{Step: 0, Kind: schedule.EvSend, Node: 0, Peer: 1, Msg: 1, Type: "MsgApp"},
		{Step: 1, Kind: schedule.EvRecv, Node: 1, Peer: 0, Msg: 1, Type: "MsgApp"},
	}
	d := &record.BugRecord{ID: "B2", Kind: string(schedule.FailureDivergence),
		Detail: guidance.DivergedTraceHeader + string(schedule.EncodeTrace(tr))}
	text = e.foundText(d)
	tpath := filepath.Join(dir, "B2-trace.json")
	require.Contains(t, text, "the trace the model diverged on, 2 events: "+tpath)
	raw, err := os.ReadFile(tpath)
	require.NoError(t, err)
	back, err := schedule.DecodeTrace(raw)
	require.NoError(t, err)
	require.Equal(t, string(schedule.EncodeTrace(tr)), string(schedule.EncodeTrace(back)))
}
