package report

import (
	"flag"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot/vg"
)

var samplesDir = flag.String("samples", "", "write sample figures and pages to this directory (e.g. /tmp/report-samples) for a person to look at")

// strategyProfile is how a synthetic strategy behaves: final coverage per
// measure relative to the model strategy, and the chance and typical time to
// find the bug.
type strategyProfile struct {
	name     string
	coverage map[string]float64 // measure -> typical final coverage
	tau      float64            // fraction of the budget to reach 63% of it
	bugP     float64            // chance a run finds the bug
	bugAt    float64            // typical first bug, fraction of the budget
}

var profiles = []strategyProfile{
	{"model", map[string]float64{"model": 820, "traces": 7600, "lines": 1450}, 0.25, 1, 0.25},
	{"line", map[string]float64{"model": 610, "traces": 7900, "lines": 1510}, 0.2, 0.6, 0.5},
	{"trace", map[string]float64{"model": 560, "traces": 9100, "lines": 1400}, 0.3, 0.4, 0.6},
	{"random", map[string]float64{"model": 420, "traces": 9300, "lines": 1330}, 0.15, 0, 0},
}

// syntheticComparison is a deterministic comparison of the first
// nStrategies profiles with nRuns runs each, realistic enough to judge the
// figures by: saturating coverage with noise, runs recorded every 1% of the
// budget, the last run of every strategy stopping at 70% of the budget.
func syntheticComparison(nStrategies, nRuns int, budget int64) *Comparison {
	c := &Comparison{Adapter: "etcdraft", Model: "raft.tla", Iterations: budget, Created: "2025-01-02T03:04:05Z"}
	for i := range nRuns {
		c.Seeds = append(c.Seeds, uint64(i+1))
	}
	for si, prof := range profiles[:nStrategies] {
		s := Strategy{Name: prof.name}
		for ri, seed := range c.Seeds {
			rng := rand.New(rand.NewPCG(seed, uint64(si)))
			run := Run{Seed: seed, Coverage: map[string][]Point{}, Final: map[string]float64{}, Iterations: budget, Seconds: 600 + 60*rng.Float64()}
			if ri == nRuns-1 && nRuns > 1 {
				run.Iterations = budget * 7 / 10
			}
			for _, m := range []string{"model", "traces", "lines"} {
				target := prof.coverage[m] * (0.9 + 0.2*rng.Float64())
				tau := prof.tau * (0.8 + 0.4*rng.Float64())
				var v float64
				for it := int64(0); it <= run.Iterations; it += budget / 100 {
					x := float64(it) / float64(budget)
					next := math.Round(target * (1 - math.Exp(-x/tau)) * (0.97 + 0.03*rng.Float64()))
					v = max(v, next) // coverage never decreases
					// Time: the run's own speed, which differs by run.
					sec := math.Round(run.Seconds*float64(it)/float64(budget)*1000) / 1000
					run.Coverage[m] = append(run.Coverage[m], Point{Iteration: it, Value: v, Seconds: sec})
				}
				run.Final[m] = v
			}
			if rng.Float64() < prof.bugP {
				at := min(run.Iterations, int64(prof.bugAt*float64(budget)*(0.4+1.2*rng.Float64())))
				run.FirstBug = &at
				run.Bugs = append(run.Bugs, BugHit{Signature: "invariant LeaderCompleteness violated", Kind: "invariant", FirstIteration: at})
				if rng.Float64() < 0.5 {
					run.Bugs = append(run.Bugs, BugHit{Signature: "panic: tocommit(12) is out of range [lastIndex(11)]", Kind: "crash", FirstIteration: at + budget/10})
				}
			}
			s.Runs = append(s.Runs, run)
		}
		c.Strategies = append(c.Strategies, s)
	}
	return c
}

// TestWriteSamples writes sample figures and pages when -samples is given:
//
//	go test ./report/ -run TestWriteSamples -samples /tmp/report-samples
func TestWriteSamples(t *testing.T) {
	if *samplesDir == "" {
		t.Skip("no -samples directory given")
	}
	require.NoError(t, os.MkdirAll(*samplesDir, 0o755))
	c := syntheticComparison(4, 5, 20000)
	require.NoError(t, Analyze(c, "model"))
	figs, err := CompareFigures(c, DefaultWidth, DefaultHeight)
	require.NoError(t, err)
	for _, f := range figs {
		require.NoError(t, os.WriteFile(filepath.Join(*samplesDir, f.Name), f.PNG, 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(*samplesDir, strings.TrimSuffix(f.Name, ".png")+".svg"), f.SVG, 0o644))
	}
	writeHTML(t, filepath.Join(*samplesDir, "compare.html"), func(f *os.File) error { return WriteCompareHTML(f, c, figs) })

	// Variants: one strategy; a narrow figure whose legend goes below.
	one := syntheticComparison(1, 5, 20000)
	b, err := CoveragePlot(one, "lines", DefaultWidth, DefaultHeight)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(*samplesDir, "variant-one-strategy.png"), b, 0o644))
	b, err = FirstBugPlot(c, 4.5*vg.Inch, 4.5*vg.Inch)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(*samplesDir, "variant-narrow-first-bug.png"), b, 0o644))

	cp := sampleCampaign(t)
	for i, f := range cp.Plots {
		require.NoError(t, os.WriteFile(filepath.Join(*samplesDir, "campaign-"+string(rune('a'+i))+".png"), f.PNG, 0o644))
	}
	writeHTML(t, filepath.Join(*samplesDir, "campaign.html"), func(f *os.File) error { return WriteCampaignHTML(f, cp) })
}

func writeHTML(t *testing.T, path string, write func(*os.File) error) {
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, write(f))
	require.NoError(t, f.Close())
}

// sampleCampaign is a campaign page with a coverage-over-time figure and two
// bugs, one of them with text that must be escaped.
func sampleCampaign(t *testing.T) *Campaign {
	series := map[string][]XY{}
	for _, m := range []struct {
		name  string
		final float64
	}{{"model", 830}, {"lines", 1480}} {
		for s := 0.0; s <= 600; s += 10 {
			series[m.name] = append(series[m.name], XY{X: s, Y: math.Round(m.final * (1 - math.Exp(-s/150)))})
		}
	}
	png, err := CampaignPlot(series, "fuzzing time (seconds)", "coverage (items)", "Coverage over fuzzing time", []float64{300})
	require.NoError(t, err)
	return &Campaign{
		Title:    "modelfuzz campaign: etcdraft / raft.tla, strategy model",
		Settings: [][2]string{{"adapter", "etcdraft"}, {"model", "raft.tla"}, {"strategy", "model"}, {"seed", "7"}, {"iterations", "20,000"}},
		Plots:    []Figure{{Name: "coverage-time.png", Title: "Coverage over time", Caption: "Coverage of every measure over the fuzzing time, from the stats snapshots.", PNG: png}},
		Bugs: []BugSection{
			{
				ID: "B1", Kind: "invariant", Signature: "invariant LeaderCompleteness violated", Message: "node 2 lost committed entry 5 <term 3>",
				Hits: 14, FirstIteration: 4120, LastIteration: 19004, OriginalSteps: 48, MinimizedSteps: 9,
				Timeline:  "1  deliver  n1 -> n2  MsgApp{term:3 index:5}\n2  crash    n2\n3  restart  n2",
				ModelView: "/\\ currentTerm = (n1 :> 3 @@ n2 :> 3)\n/\\ commitIndex = (n1 :> 5 @@ n2 :> 4)",
			},
			{
				ID: "B2", Kind: "crash", Signature: "panic: <script>alert(1)</script>", Message: "panic & \"quotes\"",
				Hits: 1, FirstIteration: 9000, LastIteration: 9000, OriginalSteps: 30, MinimizedSteps: 30,
			},
		},
	}
}
