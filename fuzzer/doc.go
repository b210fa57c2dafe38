// Package fuzzer is the heart of modelfuzz: the core types (Input, Step, Event,
// Trace), the interfaces every system under test and every coverage notion
// implements (System, Measure, Oracle), and the fuzz loop of the ModelFuzz
// algorithm (Algorithm 5 of the ModelFuzz chapter) with its campaign state.
//
// It must not know any concrete adapter or model: adapters plug in through
// System, coverage notions through Measure, storage through Store. The loop
// computes; the edges (adapters, the corpus, the terminal) do I/O.
package fuzzer
