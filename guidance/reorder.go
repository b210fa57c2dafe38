package guidance

// StrategyModelReorder is model guidance (random fresh inputs, the pool of
// the inputs that reached new abstract states) where a third of the
// mutants of a chosen input are ordering mutants (mutate.Reorder) in place
// of half of the random tails and ordinary mutants: a deliver-one deep in
// an inbox, a process starved for a stretch of steps and then overtaken
// in its own inbox, a crash and restart inside a joint configuration's
// window. These are the orderings the online strategies make in every
// execution and a random step almost never does; here they are made from
// the inputs that reached rare states.
const StrategyModelReorder = "model-reorder"
