// Package record holds the records a campaign writes and its store keeps:
// the inputs, the bugs, the stats snapshots, the counters, and the batch
// that commits them at once, with the Store interface between the loop
// that writes them and the corpus that keeps them.
//
// It is a leaf: it imports nothing of modelfuzz but schedule, whose Input
// the records carry, so that the corpus and the commands can name a
// record without the loop.
package record
