package guidance_test

import (
	"context"
	"sync"
	"testing"

	"github.com/modelfuzz/modelfuzz/adapters/etcdraft"
	"github.com/modelfuzz/modelfuzz/adapters/microbench"
	"github.com/modelfuzz/modelfuzz/corpus"
	"github.com/modelfuzz/modelfuzz/fuzzer"
	"github.com/modelfuzz/modelfuzz/guidance"
	"github.com/modelfuzz/modelfuzz/mapper"
	"github.com/modelfuzz/modelfuzz/models"
	"github.com/modelfuzz/modelfuzz/schedule"
	"github.com/modelfuzz/modelfuzz/tlc/sidecar"
	"github.com/modelfuzz/modelfuzz/tlc/sim"
)

// The model engine's share of a model-guided campaign, alone: the
// simulation requests of a campaign (random inputs and the mutants the
// rare energy schedule makes of them, as `modelfuzz run --model` makes)
// are recorded once, then each iteration simulates all of them on a fresh
// simulator (its transition cache empty), in process.
//
//	go test -run '^$' -bench 'Engine' -benchtime 3x ./guidance/

// recorder is a model engine that records the requests it simulates.
type recorder struct {
	sidecar.Simulator
	mu   sync.Mutex
	reqs []*sim.Request
}

func (r *recorder) Simulate(ctx context.Context, req *sim.Request) (*sim.Result, error) {
	r.mu.Lock()
	r.reqs = append(r.reqs, req)
	r.mu.Unlock()
	return r.Simulator.Simulate(ctx, req)
}

func (r *recorder) SimulateBatch(ctx context.Context, reqs []*sim.Request) ([]*sim.Result, error) {
	r.mu.Lock()
	r.reqs = append(r.reqs, reqs...)
	r.mu.Unlock()
	return r.Simulator.SimulateBatch(ctx, reqs)
}

// campaignRequests runs a model-guided campaign of n iterations on fac
// and returns the simulation requests it made.
func campaignRequests(b *testing.B, fac schedule.Factory, mp schedule.Mapper, model string, consts []string, shape schedule.Shape, n int64) (*models.Spec, []*sim.Request) {
	b.Helper()
	spec := &models.Spec{Model: model, Consts: consts}
	m, err := models.Load(*spec)
	if err != nil {
		b.Fatal(err)
	}
	s, err := sim.New(m, 0)
	if err != nil {
		b.Fatal(err)
	}
	rec := &recorder{Simulator: sidecar.InProc{Simulator: s}}
	mm := &guidance.ModelMeasure{Mapper: mp, Sim: rec}
	g, err := schedule.NewGenerator(fac.Spec(), shape)
	if err != nil {
		b.Fatal(err)
	}
	st, err := corpus.Open(b.TempDir(), corpus.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	f, err := fuzzer.New(fuzzer.Options{Strategy: "model", Guide: mm, Measures: []fuzzer.Measure{guidance.TraceMeasure{}, mm},
		Params: fuzzer.Params{Seed: 7, SeedPopulation: 20, ReseedEvery: 200, Mutations: 5, Energy: fuzzer.EnergyRare, FreshShare: 0.1, Stack: 8},
		Limits: fuzzer.Limits{Iterations: n, Parallel: 1}}, fac, g, st)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := f.Run(context.Background()); err != nil {
		b.Fatal(err)
	}
	return spec, rec.reqs
}

// benchEngine simulates reqs on a fresh simulator of spec per iteration.
func benchEngine(b *testing.B, spec *models.Spec, reqs []*sim.Request) {
	m, err := models.Load(*spec)
	if err != nil {
		b.Fatal(err)
	}
	actions := 0
	for _, r := range reqs {
		actions += len(r.Actions)
	}
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		s, err := sim.New(m, 0)
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range reqs {
			if _, err := s.Simulate(r); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(reqs)), "ns/execution")
	b.ReportMetric(float64(actions)/float64(len(reqs)), "actions/execution")
}

// BenchmarkEngineRaft is raft.tla's simulation of 2,000 executions of a
// campaign on etcd raft with the settings --model raft.tla uses.
func BenchmarkEngineRaft(b *testing.B) {
	cfg := etcdraft.DefaultConfig()
	cfg.API, cfg.Bootstrap, cfg.Spares = etcdraft.APIRawNode, etcdraft.BootstrapSnapshot, 0
	fac, err := etcdraft.NewFactory(cfg)
	if err != nil {
		b.Fatal(err)
	}
	mp := mapper.NewEtcdraft(mapper.EtcdraftParams{Nodes: cfg.Nodes, PreVote: cfg.PreVote, CheckQuorum: cfg.CheckQuorum, ReadStates: true})
	shape := schedule.Shape{Steps: 150, MaxMessages: 5, CrashQuota: 4, Requests: 8,
		Actions: "deliver,crash,restart,timeout,request,drop,duplicate,deliver-one,partition,heal,transfer-leader,read,tick"}
	spec, reqs := campaignRequests(b, fac, mp, "raft.tla", mp.Consts(), shape, 2000)
	benchEngine(b, spec, reqs)
}

// BenchmarkEngineMicrobench is microbench.tla's simulation of 20,000
// executions of a campaign on the micro-benchmark at its defaults.
func BenchmarkEngineMicrobench(b *testing.B) {
	cfg := microbench.Config{Workers: 3, Tasks: 5}
	fac, err := microbench.NewFactory(cfg)
	if err != nil {
		b.Fatal(err)
	}
	mp := mapper.NewMicrobench(mapper.MicrobenchParams{Workers: cfg.Workers, Tasks: cfg.Tasks})
	shape := schedule.Shape{Steps: 50, MaxMessages: 5, CrashQuota: 10, Requests: 2}
	spec, reqs := campaignRequests(b, fac, mp, "microbench.tla", mp.Consts(), shape, 20000)
	benchEngine(b, spec, reqs)
}
