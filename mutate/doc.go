// Package mutate is mutation: how a kept input becomes new ones. It holds
// the operators (the ModelFuzz chapter's swaps of processes, crashes and
// message counts, and inserts, deletes, moves and new parameters), stacked
// havoc (several rounds of them), tails (a prefix kept, the rest drawn at
// random) with where they are cut, and the rare energy schedule's choices:
// which input of the pool is mutated next and how many mutants it gets.
//
// It draws new steps with a schedule.Generator and imports nothing of
// modelfuzz but schedule: the loop keeps its queue and pool and asks
// mutate what to make of them. Every choice draws from the random source
// it is given, in a fixed order, so a campaign's mutants depend on its
// seed alone.
package mutate
