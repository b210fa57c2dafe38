// Package mutate owns everything that makes inputs: random generation from a
// system's spec, the mutations of the ModelFuzz algorithm and a few more
// (later: minimization). Like syzkaller's prog/, what is known about the shape
// of an input lives here. It never executes anything.
//
// All randomness comes from a *rand.Rand handed in by the caller, so a
// campaign seeded with one --seed is reproducible.
package mutate
