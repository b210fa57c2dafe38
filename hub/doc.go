// Package hub shares one campaign among workers on many machines through
// NATS JetStream: a durable stream of what each worker found (the inputs
// that reached new coverage, the coverage items, stats snapshots) and a
// key-value bucket of the campaign's settings, its bugs (one record a
// signature, with each worker's hits and one minimized reproducer) and each
// worker's status. The hub is NATS itself: embedded in this process with a
// file store (Start), or an existing cluster (Connect), which replicates
// and survives machines; this package owns the layout (layout.go), the
// worker's side (Join: a record.Store that publishes what its campaign
// commits, and a fuzzer.Exchange that brings the others' work in) and the
// reading of a campaign's shared state (Client).
//
// It must not run campaigns, print or assemble systems: campaign/ joins a
// campaign to a hub, cmd/modelfuzz serves the hub. A worker's own corpus
// stays its cache and resume point: nothing here replaces the local store,
// and a worker that cannot reach the hub goes on locally and catches up
// when it can (what it committed meanwhile is published then).
package hub
