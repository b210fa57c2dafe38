package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/pflag"

	"github.com/modelfuzz/modelfuzz/adapters/etcdraft"
	"github.com/modelfuzz/modelfuzz/adapters/microbench"
	"github.com/modelfuzz/modelfuzz/adapters/process"
	"github.com/modelfuzz/modelfuzz/mapper"
	"github.com/modelfuzz/modelfuzz/schedule"
)

// adapterFlags holds the flags of every adapter; each adapter reads its own.
type adapterFlags struct {
	name    string
	workers int
	tasks   int
	inject  string

	nodes         int
	snapshotEvery int
	preVote       bool
	checkQuorum   bool

	cluster string
}

type adapterInfo struct {
	about string
	steps int // default --steps
	reqs  int // default --requests
	// fromFlags builds a factory from the command line.
	fromFlags func(a *adapterFlags) (schedule.Factory, error)
	// fromConfig rebuilds the factory stored with a campaign.
	fromConfig func(raw json.RawMessage) (schedule.Factory, error)
	// model is the adapter's model (embedded name) and mapper, with the
	// model constants that must match the system's configuration.
	model     string
	mapperFor func(fac schedule.Factory) (schedule.Mapper, []string)
	// lineCoverage: the system runs in this process and a coverage build
	// (make cover) instruments it.
	lineCoverage bool
	// explicit: only chosen by --adapter, never from the model's name.
	explicit bool
}

var adapters = map[string]adapterInfo{
	"etcdraft": {
		about: "a cluster of go.etcd.io/raft/v3 RawNodes (--nodes, --snapshot-every, --prevote, --checkquorum, --inject forget-hardstate|send-before-persist|apply-uncommitted|drop-snapshot-on-restart)",
		steps: 100,
		reqs:  5,
		fromFlags: func(a *adapterFlags) (schedule.Factory, error) {
			return etcdraft.NewFactory(etcdraft.Config{Nodes: a.nodes, SnapshotEvery: a.snapshotEvery,
				PreVote: a.preVote, CheckQuorum: a.checkQuorum, Inject: a.inject})
		},
		fromConfig:   func(raw json.RawMessage) (schedule.Factory, error) { return etcdraft.FactoryFromConfig(raw) },
		model:        "raft.tla",
		lineCoverage: true,
		mapperFor: func(fac schedule.Factory) (schedule.Mapper, []string) {
			c := fac.(*etcdraft.Factory).Cfg()
			m := mapper.NewEtcdraft(mapper.EtcdraftParams{Nodes: c.Nodes, PreVote: c.PreVote, CheckQuorum: c.CheckQuorum})
			return m, m.Consts()
		},
	},
	"process": {
		about:    "a cluster of real OS processes on loopback through the interception API (--cluster FILE, e.g. adapters/process/raftkv.json; --inject is passed to every replica; docs/process-api.md)",
		steps:    30,
		reqs:     4,
		explicit: true,
		fromFlags: func(a *adapterFlags) (schedule.Factory, error) {
			if a.cluster == "" {
				return nil, fmt.Errorf("adapter process needs --cluster FILE (for raftkv: adapters/process/raftkv.json)")
			}
			cl, err := process.LoadCluster(a.cluster)
			if err != nil {
				return nil, err
			}
			if a.inject != "" {
				cl.Args = append(cl.Args, "--inject", a.inject)
			}
			raw, err := json.Marshal(cl)
			if err != nil {
				return nil, err
			}
			return process.FactoryFromConfig(raw, process.Options{Logger: adapterLogger})
		},
		fromConfig: func(raw json.RawMessage) (schedule.Factory, error) {
			return process.FactoryFromConfig(raw, process.Options{Logger: adapterLogger})
		},
		model: "raft.tla",
		mapperFor: func(fac schedule.Factory) (schedule.Mapper, []string) {
			m := mapper.NewEtcdraft(mapper.EtcdraftParams{Nodes: fac.(*process.Factory).Cluster().Processes})
			return m, m.Consts()
		},
	},
	"microbench": {
		about: "the ModelFuzz micro-benchmark: master, terminator, workers (--workers, --tasks, --inject flush-before-last|hang-on-flush-before-last)",
		steps: 50,
		reqs:  2,
		fromFlags: func(a *adapterFlags) (schedule.Factory, error) {
			return microbench.NewFactory(microbench.Config{Workers: a.workers, Tasks: a.tasks, Inject: a.inject})
		},
		fromConfig: func(raw json.RawMessage) (schedule.Factory, error) { return microbench.FactoryFromConfig(raw) },
		model:      "microbench.tla",
		mapperFor: func(fac schedule.Factory) (schedule.Mapper, []string) {
			c := fac.(*microbench.Factory).Cfg()
			m := mapper.NewMicrobench(mapper.MicrobenchParams{Workers: c.Workers, Tasks: c.Tasks})
			return m, m.Consts()
		},
	},
}

func adapterNames() string {
	var names []string
	for n := range adapters {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func lookupAdapter(name string) (adapterInfo, error) {
	a, ok := adapters[name]
	if !ok {
		return adapterInfo{}, fmt.Errorf("unknown adapter %q (known: %s)", name, adapterNames())
	}
	return a, nil
}

func (a *adapterFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&a.name, "adapter", "microbench", "system under test: "+adapterNames())
	fs.IntVar(&a.workers, "workers", 6, "microbench: number of workers")
	fs.IntVar(&a.tasks, "tasks", 20, "microbench: execute messages per request")
	fs.IntVar(&a.nodes, "nodes", 3, "etcdraft: number of raft nodes")
	fs.IntVar(&a.snapshotEvery, "snapshot-every", 3, "etcdraft: applied entries between snapshots")
	fs.BoolVar(&a.preVote, "prevote", false, "etcdraft: enable PreVote")
	fs.BoolVar(&a.checkQuorum, "checkquorum", false, "etcdraft: enable CheckQuorum")
	fs.StringVar(&a.inject, "inject", "", "seed a known bug into the system (microbench: flush-before-last, hang-on-flush-before-last; etcdraft: forget-hardstate, send-before-persist, apply-uncommitted, drop-snapshot-on-restart; process: passed to every replica as --inject, raftkv: send-before-persist, stale-read)")
	fs.StringVar(&a.cluster, "cluster", "", "process: the cluster file (JSON; see docs/process-api.md and adapters/process/raftkv.json)")
}

func (a *adapterFlags) factory() (schedule.Factory, adapterInfo, error) {
	info, err := lookupAdapter(a.name)
	if err != nil {
		return nil, info, err
	}
	f, err := info.fromFlags(a)
	return f, info, err
}

// adapterLogger receives the process adapter's complaints about replicas
// (a malformed request, an unknown replica); run sets it to its logger.
var adapterLogger hclog.Logger

// closeFactory stops what a factory still runs (the process adapter's
// replicas and temporary directories).
func closeFactory(fac schedule.Factory) {
	if c, ok := fac.(interface{ Close() error }); ok {
		c.Close()
	}
}
