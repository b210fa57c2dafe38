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
	{"generated", "model, after the inputs generated from the model's paths to the abstract states the corpus lacks (modelfuzz generate) ran first in each session"},
	{"line", "new source lines of the system under test (Go coverage counters; needs make cover)"},
	{"trace", "new classes of the happens-before partial order (Mazurkiewicz traces)"},
	{"random", "no guidance: every input is random or a mutant of a random input"},
	{"pct", "online: PCT, random priorities on processes, d-1 priority change points among the n events (--depth)"},
	{"pctcp", "online: PCTCP, PCT with priorities on chains of causally related events"},
	{"pos", "online: POS, random priorities on events, redrawn for the events dependent on the one that ran"},
	{"dpos", "online: d-POS, POS with d-1 priority change points among the racy events only"},
	{"tapct", "online: taPCT, PCTCP with its d-1 change points among the racy events only"},
	{"model-pctcp", "model guidance whose fresh inputs are PCTCP executions (needs --model)"},
	{"model-dpos", "model guidance whose fresh inputs are d-POS executions (needs --model)"},
	{"model-pctcp-tails", "model guidance where a third of the mutants replay an input up to its rarest state and PCTCP builds the rest (needs --model)"},
	{"model-dpos-tails", "model guidance where a third of the mutants replay an input up to its rarest state and d-POS builds the rest (needs --model)"},
	{"model-pctcp-genome", "model guidance over PCTCP's choices: every input a PCTCP execution made from a genome (change points, chain priorities, fault points, random seed), a genome kept when it reaches new abstract states and mutated one choice at a time (needs --model)"},
	{"model-dpos-genome", "model guidance over d-POS's choices, as model-pctcp-genome (needs --model)"},
	{StrategyModelReorder, "model guidance where a third of the mutants are ordering mutants: a deliver-one deep in an inbox, a process starved for a stretch of steps, a crash and restart inside a joint configuration's window (needs --model)"},
	{"rounds", "online: lossy-synchronous rounds, at most --isolations isolated processes, the network healed every --period rounds"},
	{"negrl", "online, learning: NegRLVisits, Q-learning with minus the visits of a state as reward"},
	{"bonusmaxrl", "online, learning: BonusMaxRL, Q-learning towards the least visited states (1/visits, max update)"},
	{"waypointrl", "online, learning: WaypointRL, BonusMaxRL with a Q-table per waypoint and a reward for passing the next (--waypoints)"},
	{"walk", "online: uniform random choice among the enabled events (the learning strategies' baseline)"},
}

// StrategyNames lists the strategies' names: "model, line, trace, random, pct, ...".
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
