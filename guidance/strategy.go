package guidance

import (
	"fmt"
	"strings"
)

// Strategy is a way of choosing which inputs a campaign keeps.
type Strategy struct {
	Name  string
	About string // one line
}

// Strategies are the strategies a campaign can use, in the order the
// command line lists them.
var Strategies = []Strategy{
	{"model", "new abstract states of the TLA+ model (the ModelFuzz algorithm)"},
	{"line", "new source lines of the system under test (Go coverage counters; needs make cover)"},
	{"trace", "new classes of the happens-before partial order (Mazurkiewicz traces)"},
	{"random", "no guidance: every input is random or a mutant of a random input"},
}

// StrategyNames lists the strategies' names: "model, line, trace, random".
func StrategyNames() string {
	names := make([]string, len(Strategies))
	for i, s := range Strategies {
		names[i] = s.Name
	}
	return strings.Join(names, ", ")
}

// LookupStrategy returns the strategy called name; an unknown name is an
// error that lists the known ones.
func LookupStrategy(name string) (Strategy, error) {
	for _, s := range Strategies {
		if s.Name == name {
			return s, nil
		}
	}
	return Strategy{}, fmt.Errorf("unknown strategy %q (known: %s)", name, StrategyNames())
}
