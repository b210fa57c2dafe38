// Package redisraft runs clusters of unmodified RedisRaft nodes
// (redis-server with redisraft.so loaded) as a schedule.System. Each node
// advertises the address of a proxy of the fuzzer (raft.addr), so every
// RAFT.* command a node sends a peer, and every reply, is read off the
// wire (RESP), recorded and held; a step delivers it, drops it, copies it
// or keeps it behind a partition (proxy.go says what a link can do, and
// why it is only what a TCP connection can). After every message handled
// and every step the nodes' states are polled with INFO raft.
//
// Actions (docs/redisraft.md has the full list): deliver, deliver-one
// (the k-th held message whose connection can hand it over next), drop
// (breaks the link, as a reset connection), duplicate (a request sent
// again over a connection of its own), crash (SIGKILL, data directory
// kept) and restart, timeout (RAFT.TIMEOUT_NOW), tick (one round of a
// leader's heartbeats), request (SET, GET, INCR or MULTI SET INCR EXEC by
// the value, sent to the step's node and redirected to the leader),
// partition and heal, transfer-leader (RAFT.TRANSFER_LEADER).
//
// Oracles: a node that exits by itself (its exit status and the crash
// report in its log give the bug's signature, crash.go), a node that does
// not answer, a node that handled a message of a higher term and kept its
// own (Raft's first rule, on the wire and INFO raft), two leaders in one
// term, and the linearizability of the client history (package
// linearize). A campaign with --model raft.tla also maps the trace onto
// the model (mapper/redisraft.go): a divergence is a bug of its own kind.
//
// The package must not import any package of the fuzzer loop; it speaks
// schedule's interfaces only. Its processes are started through
// internal/osproc, which records them so that a fuzzer killed with
// SIGKILL leaves nothing running past the next start.
package redisraft
