package campaign

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A campaign whose process fails is continued once from its corpus
// (without --fresh), its series joined to the failed process's, and its
// result says it was continued; a second failure is the comparison's
// error, naming both.
func TestCompareJobContinuesAFailedCampaign(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "fake-modelfuzz")
	// The fake campaign: its first run writes two points and a corpus,
	// then fails; a run with --fresh again would fail too (the test would
	// see it); a run without it writes the later points and a summary.
	script := `#!/bin/sh
d=$(dirname "$0")/run
case " $* " in
*" --fresh "*)
  mkdir -p "$d/corpus"; echo 'modelfuzz corpus, format 1' > "$d/corpus/MODELFUZZ"
  if [ -f "$d/failed-once" ] && [ "$FAIL_TWICE" != 1 ]; then echo "ran --fresh twice" >&2; exit 3; fi
  touch "$d/failed-once"
  printf '{"iteration":10,"coverage":{"traces":5}}\n{"iteration":20,"coverage":{"traces":9}}\n{"iteration":30,"cov' > "$d/series.jsonl"
  echo "modelfuzz: corpus X: the file system did not answer" >&2; exit 1;;
esac
[ "$FAIL_TWICE" = 1 ] && { echo "modelfuzz: still failing" >&2; exit 1; }
printf '{"iteration":20,"coverage":{"traces":9}}\n{"iteration":40,"coverage":{"traces":15}}\n' > "$d/series.jsonl"
echo '{"iterations":40,"duration_s":1,"unique_traces":15,"coverage":{"traces":15},"bugs":[]}'
`
	require.NoError(t, os.WriteFile(exe, []byte(script), 0o755))
	job := &compareJob{strategy: "random", seed: 1, dir: filepath.Join(dir, "run"),
		args: []string{"run", "--corpus", filepath.Join(dir, "run", "corpus"), "--fresh", "--json"}}
	r, err := runCompareJob(context.Background(), exe, job, true)
	require.NoError(t, err)
	require.Contains(t, r.Resumed, "the file system did not answer")
	var its []int64
	for _, p := range r.Coverage["traces"] {
		its = append(its, p.Iteration)
	}
	require.Equal(t, []int64{0, 10, 20, 40}, its, "the failed process's points, then the continuation's")
	require.Equal(t, 15.0, r.Final["traces"])

	t.Setenv("FAIL_TWICE", "1")
	require.NoError(t, os.RemoveAll(job.dir))
	_, err = runCompareJob(context.Background(), exe, job, true)
	require.Error(t, err)
	require.True(t, strings.Contains(err.Error(), "still failing") && strings.Contains(err.Error(), "the file system did not answer"), err.Error())
}
