// Package schedule owns the input of modelfuzz, as syzkaller's prog/ owns a
// program: the steps and actions of a schedule, their JSON encoding and
// validation, the event trace an execution produces, the System interface
// that adapters implement, the Mapper interface that turns a trace into
// model actions, random generation, mutation and minimization.
//
// Adapters and mappers import this package only, never the fuzz loop. It
// never executes anything itself: minimization is handed a function that
// does. All randomness comes from a *rand.Rand handed in by the caller, so a
// campaign seeded with one --seed is reproducible.
package schedule
