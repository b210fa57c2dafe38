// Command readstages measures how far a campaign's corpus gets along the
// scenario of bugs/etcdraft/readindex-duplicate-ctx, in raft.tla's terms
// (docs/benchmarks.md, "readindex-duplicate-ctx"). It executes every input of an exported
// corpus (modelfuzz corpus export) on adapters/etcdraft with the
// campaign's configuration, maps the trace onto raft.tla and replays it,
// and reports the furthest stage each input reached:
//
//  1. a leader holds stale answers to its heartbeats that are twins of a
//     late copy of a read they confirmed (readTwin);
//  2. ... while another server's term is higher (it was deposed without
//     knowing);
//  3. ... and another server has committed past it;
//  4. ... and it has taken a read since then (readBehind).
//
// With -tails N, each input that reached stage 3 or 4 is cut right after
// the step that reached its furthest stage and continued with N random
// tails (the campaign's shape): how many of them fail. Build it against
// a patched library (scripts/library-bugs.sh's recipe) to count failures.
//
//	go run -tags with_tla ./scripts/readstages [-tails N] [-list] DIR
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"

	"github.com/modelfuzz/modelfuzz/adapters/etcdraft"
	"github.com/modelfuzz/modelfuzz/campaign"
	"github.com/modelfuzz/modelfuzz/mapper"
	"github.com/modelfuzz/modelfuzz/models"
	"github.com/modelfuzz/modelfuzz/schedule"
	"github.com/modelfuzz/modelfuzz/tlc/sim"
)

func main() {
	tails := flag.Int("tails", 0, "random tails per input that reached stage 3 or 4")
	list := flag.Bool("list", false, "print each input that reached stage 3 or 4")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: readstages [-tails N] [-list] EXPORTED_CORPUS_DIR")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *tails, *list); err != nil {
		fmt.Fprintln(os.Stderr, "readstages:", err)
		os.Exit(1)
	}
}

func run(dir string, tails int, list bool) error {
	raw, err := os.ReadFile(filepath.Join(dir, "campaign.json"))
	if err != nil {
		return fmt.Errorf("%w (give the directory that modelfuzz corpus export wrote)", err)
	}
	// campaign.json is the campaign's stored settings, its input shape
	// among them.
	var c campaign.Settings
	if err := json.Unmarshal(raw, &c); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(dir, "campaign.json"), err)
	}
	if c.Adapter != "etcdraft" {
		return fmt.Errorf("%s: a campaign of adapter %q; readstages reads etcdraft campaigns", dir, c.Adapter)
	}
	var cfg etcdraft.Config
	if err := json.Unmarshal(c.AdapterConfig, &cfg); err != nil {
		return fmt.Errorf("adapter_config: %w", err)
	}
	fac, err := etcdraft.NewFactory(cfg)
	if err != nil {
		return err
	}
	sys, err := fac.New()
	if err != nil {
		return err
	}
	mp := mapper.NewEtcdraft(campaign.EtcdraftMapperParams(cfg))
	m, err := models.Load(models.Spec{Model: "raft.tla", Consts: mp.Consts(), NoView: true})
	if err != nil {
		return err
	}
	sm, err := sim.New(m, 0)
	if err != nil {
		return err
	}
	g, err := schedule.NewGenerator(fac.Spec(), c.Shape)
	if err != nil {
		return err
	}
	files, err := filepath.Glob(filepath.Join(dir, "inputs", "*.json"))
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("%s: no inputs/*.json", dir)
	}
	sort.Strings(files)
	reached := make([]int, 5)
	yes := true
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		in, _, err := schedule.DecodeInputFile(data)
		if err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		ex, err := sys.Execute(in)
		if err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		acts, err := mp.Map(in, ex)
		if err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		req := &sim.Request{Actions: make([]sim.Action, len(acts)), States: &yes}
		for k, a := range acts {
			req.Actions[k] = sim.Action{Name: a.Name, Params: a.Params}
		}
		res, err := sm.Simulate(req)
		if err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		best, at := 0, 0
		for _, s := range res.States {
			if g, err := stage(s.State); err != nil {
				return fmt.Errorf("%s: %w", f, err)
			} else if g > best {
				best, at = g, s.Index
			}
		}
		for k := 1; k <= best; k++ {
			reached[k]++
		}
		if best < 3 {
			continue
		}
		cut := acts[at-1].Step + 1
		if list {
			fmt.Printf("%s: stage %d at step %d\n", f, best, cut-1)
		}
		if tails > 0 {
			r := rand.New(rand.NewPCG(uint64(len(f)), uint64(cut)))
			fails := 0
			for t := 0; t < tails; t++ {
				tail := g.Random(r).Steps
				steps := append(append([]schedule.Step(nil), in.Steps[:min(cut, len(in.Steps))]...),
					tail[:max(0, min(len(tail), c.Steps-cut))]...)
				ex, err := sys.Execute(&schedule.Input{Steps: steps})
				if err != nil {
					return err
				}
				if len(ex.Failures) > 0 {
					fails++
				}
			}
			fmt.Printf("%s: stage %d, cut after step %d: %d of %d random tails fail\n", f, best, cut-1, fails, tails)
		}
	}
	fmt.Printf("%s: %d inputs; reached stage 1: %d, 2: %d, 3: %d, 4: %d\n", dir, len(files), reached[1], reached[2], reached[3], reached[4])
	return nil
}

// stage is the furthest stage a model state shows (0: none).
func stage(s map[string]json.RawMessage) (int, error) {
	var (
		role                     fn[string]
		term, commit, late, q, w fn[int]
		twin, behind             fn[bool]
	)
	for name, v := range map[string]any{"role": &role, "currentTerm": &term, "commitIndex": &commit,
		"readLate": &late, "readQ": &q, "readWait": &w, "readTwin": &twin, "readBehind": &behind} {
		if err := json.Unmarshal(s[name], v); err != nil {
			return 0, fmt.Errorf("model state, %s: %w", name, err)
		}
	}
	maxT, maxC := 0, 0
	for k := range term {
		maxT, maxC = max(maxT, term[k]), max(maxC, commit[k])
	}
	best := 0
	for x := range role {
		if role[x] != "leader" || !twin[x] || late[x] == 0 {
			continue
		}
		g := 1
		if term[x] < maxT {
			g = 2
			if commit[x] < maxC {
				g = 3
				if q[x]+w[x] > 0 && behind[x] {
					g = 4
				}
			}
		}
		best = max(best, g)
	}
	return best, nil
}

// fn is a function of the servers as the simulator writes it: a JSON
// array (servers 1..n) or object.
type fn[T any] map[string]T

func (f *fn[T]) UnmarshalJSON(b []byte) error {
	m := map[string]T{}
	if err := json.Unmarshal(b, &m); err == nil {
		*f = m
		return nil
	}
	var arr []T
	if err := json.Unmarshal(b, &arr); err != nil {
		return err
	}
	for i, x := range arr {
		m[fmt.Sprint(i+1)] = x
	}
	*f = m
	return nil
}
