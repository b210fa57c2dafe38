// Package campaign assembles campaigns: one Settings struct that the
// command line fills once, that the corpus stores and that a continued
// campaign is compared with; the registry of adapters with their mappers
// and models; starting the model engine; and the environment a stored
// campaign is replayed in (what bugs, replay, minimize and report share),
// with comparisons of strategies and imports and exports of a corpus.
//
// It holds the logic of the commands; cmd/modelfuzz keeps the cobra
// commands and the printing. It does not print: it returns results and
// texts, and reports through the hooks and logger it is given.
package campaign
