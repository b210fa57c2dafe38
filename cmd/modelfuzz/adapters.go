package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/pflag"

	"github.com/modelfuzz/modelfuzz/adapters/microbench"
	"github.com/modelfuzz/modelfuzz/fuzzer"
	"github.com/modelfuzz/modelfuzz/mapper"
)

// adapterFlags holds the flags of every adapter; each adapter reads its own.
type adapterFlags struct {
	name    string
	workers int
	tasks   int
	inject  string
}

type adapterInfo struct {
	about string
	steps int // default --steps
	reqs  int // default --requests
	// fromFlags builds a factory from the command line.
	fromFlags func(a *adapterFlags) (fuzzer.Factory, error)
	// fromConfig rebuilds the factory stored with a campaign.
	fromConfig func(raw json.RawMessage) (fuzzer.Factory, error)
	// model is the adapter's model (embedded name) and mapper, with the
	// model constants that must match the system's configuration.
	model     string
	mapperFor func(fac fuzzer.Factory) (fuzzer.Mapper, []string)
}

var adapters = map[string]adapterInfo{
	"microbench": {
		about: "the ModelFuzz micro-benchmark: master, terminator, workers (--workers, --tasks, --inject flush-before-last)",
		steps: 50,
		reqs:  2,
		fromFlags: func(a *adapterFlags) (fuzzer.Factory, error) {
			return microbench.NewFactory(microbench.Config{Workers: a.workers, Tasks: a.tasks, Inject: a.inject})
		},
		fromConfig: func(raw json.RawMessage) (fuzzer.Factory, error) { return microbench.FactoryFromConfig(raw) },
		model:      "microbench.tla",
		mapperFor: func(fac fuzzer.Factory) (fuzzer.Mapper, []string) {
			m := mapper.NewMicrobench(fac.(*microbench.Factory).Cfg())
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
	fs.StringVar(&a.inject, "inject", "", "seed a known bug into the system (microbench: flush-before-last)")
}

func (a *adapterFlags) factory() (fuzzer.Factory, adapterInfo, error) {
	info, err := lookupAdapter(a.name)
	if err != nil {
		return nil, info, err
	}
	f, err := info.fromFlags(a)
	return f, info, err
}
