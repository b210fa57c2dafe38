// Package tlc is the one door into modelfuzz's TLA+ engine: it loads a
// model (a spec file or an embedded source, its cfg, constants given on
// the command line), checks it as TLC does, generates random behaviours,
// simulates given sequences of actions, and validates a system's trace
// against a trace spec. Whoever uses the engine from outside tlc/ (the
// embedded models, the fuzzer's measures, campaigns) goes through here;
// the packages behind it (syntax, cfg, eval, check, sim, ...) are its
// workings.
//
// The types it names are the engine's own, re-exported, so that a caller
// needs no second import for them.
//
// This package must not know about the fuzzer: it imports nothing of
// fuzzer, schedule, guidance, campaign, corpus, models or the adapters.
package tlc
