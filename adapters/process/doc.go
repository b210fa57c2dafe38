// Package process is the adapter for systems that run as real OS processes:
// a cluster of replicas on 127.0.0.1, each instrumented to hand every
// protocol message and protocol event to the fuzzer through the
// interception API of docs/process-api.md. This package is the fuzzer's
// side of that API. It must not depend on a particular system, model or
// mapper: the cluster file says how to run the system, and the trace it
// produces has the shape of adapters/etcdraft's, so that a raft replica
// (raftkv) is mapped by mapper/etcdraft.go.
//
// # The cluster file
//
// A JSON object (unknown fields are errors; every problem is reported):
//
//	{
//	  "name": "raftkv",                 // required
//	  "processes": 3,                   // 1..64; process p is replica id p+1
//	  "command": "raftkv",              // required; see below
//	  "args": ["--id", "{id}", "--cluster", "{cluster}", "--client", "127.0.0.1:{client_port}", "--data", "{data}"],
//	  "env": {"GOTRACEBACK": "all"},    // added to the fuzzer's environment
//	  "workdir": "{data}",              // default {data}; relative to "dir"
//	  "data_dir": "n{id}",              // default {id}; relative, inside the execution's directory
//	  "ready": {"register": true, "timeout": "5s"},
//	  "client": "http://127.0.0.1:{client_port}",
//	  "quiet": "20ms",                  // default 20ms
//	  "call_timeout": "5s",             // default 5s
//	  "request": {"kind": "kv", "keys": 2, "timeout": "2s", "drain": "20ms"},
//	  "dir": "/abs/dir"                 // default: the cluster file's directory
//	}
//
// Placeholders, substituted per process and execution in args, env values,
// workdir and client: {id} (1-based), {index} (0-based), {port} (a free
// port for the replica's peer/API address), {client_port} (a free port for
// its client endpoint), {data} (its data directory, absolute), {cluster}
// ("1=127.0.0.1:<port of 1>,2=...": every replica's {port}) and
// {processes}. data_dir takes {id} and {index} only. Ports are chosen
// afresh for each execution (and kept across restarts within it).
//
// The command is resolved when the factory is made: an absolute path as
// it is, a path with a slash relative to "dir", a bare name in "dir" if an
// executable of that name is there, else on PATH. For raftkv.json (next to
// this file): go build -o adapters/process/raftkv ./cmd/raftkv, or go
// install ./cmd/raftkv.
//
// ready.register true (the default): a replica is ready when it registers
// with "ready": true. false: when its client endpoint accepts connections;
// such a system cannot be intercepted, so its spec offers only crash,
// restart and request. ready.timeout bounds the wait at start and restart.
// quiet: with replicas that do not serve POST /idle (see below), a step
// ends when nothing (message, event, registration) arrived for this long. call_timeout bounds each POST to a replica. request: the
// client requests of request steps; without it the spec has no request
// action. request.timeout bounds each client request; request.drain
// (default: quiet) is how long the end of an execution waits for
// outstanding requests.
//
// Factory.Config is the file normalized (defaults filled in, "dir"
// absolute); FactoryFromConfig rebuilds the same cluster from it.
//
// # An execution
//
// Each execution gets a fresh directory under the System's run directory
// (with a data directory per replica), fresh ports and its own
// interception server on 127.0.0.1:0. Every replica is started in its own
// process group (Setpgid) with MODELFUZZ_URL and MODELFUZZ_ID in its
// environment; the execution waits until all are ready and quiet. If a
// replica exits while starting (a port taken meanwhile), the start is
// retried with new ports, up to 3 times. Then the steps run, each ended by
// the replica's acknowledgement that it is idle: POST <addr>/idle
// {"requests": k}, answered once the replica has taken in the k client
// requests written to it since it started and handed over everything
// they and the step caused. Time decides nothing (a replica answering 404
// is waited for until quiet instead, and then a slow machine can move a
// request's events into a later step):
//
//   - deliver(n): up to n messages are taken from the replica's inbox
//     (FIFO by arrival) and POSTed, one at a time, to <addr>/message, each
//     answered synchronously; then the step waits until r is idle.
//   - crash: SIGKILL to the replica's process group; its inbox is dropped
//     and it is crashed: messages to it are answered 400 and dropped with a
//     "drop" event.
//   - restart: the same command on the same data directory and ports; the
//     step waits until the replica is ready, then idle.
//   - timeout: POST <addr>/timeout, then idle.
//   - request(v): a client operation on key "k" + (v/2 mod keys): a put
//     of "v" (PUT <client>/kv/<key>, body v) when v is even, else a get
//     (GET <client>/kv/<key>; the answer is {"value": ..., "found": ...}
//     or the value itself; 404 reads as no value). Request values count 1,
//     2, 3, ... so every put is followed by a get of its key. The request
//     is sent in the background (it is answered only when the cluster,
//     driven by later steps, commits it); the step waits until it is
//     written, then until the replica is idle.
//
// A step at a crashed replica (deliver, crash, timeout, request) or a
// restart of a live one is skipped with an EvSkip event. At the end, the
// execution waits up to request.drain for outstanding requests, cancels
// the rest, kills every process group, shuts the server down and removes
// its directory. Nothing of an execution outlives Execute but its results;
// the System's run directory goes with Close.
//
// # The trace
//
// Node is the process (id-1), Peer the other process or -1. Events arrive
// over HTTP and are recorded in arrival order; those that arrive during a
// step (until it is quiet) belong to it. With the synchronous delivery
// contract only one replica is active at a time, so a well-behaved
// replica gives the same trace every time: what a delivery or a timeout
// causes arrives before its call is answered, and what a client request or
// a restart causes before the replica answers POST /idle (ReplayRate
// measures it). What arrives while the cluster
// starts is recorded in step 0, ordered by replica (they start
// concurrently), with the messages numbered in that order; a "restart"
// event then is left out (a first start is not a restart).
//
//   - POST /message → send (schedule.EvSend): Node from, Peer to, Msg a
//     number per execution (1, 2, ...), Type the message type, Args the
//     params. Its delivery → recv (schedule.EvRecv) with the same Msg, Type
//     and Args, recorded before the POST, so the events the delivery causes
//     follow it. A message to a crashed replica → "drop": Node the
//     receiver, Peer the sender, Msg, Type.
//   - POST /event {type: T, params} → Kind T, Type T, Args the params, with
//     two renamings that match adapters/etcdraft: "role" → Kind "role",
//     Type the params' role ("leader", "candidate", ...), Args without it;
//     "proposal" → Kind "dropped", Type "proposal". Types that name the
//     fuzzer's own kinds (send, recv, crash, skip, response, drop, exit,
//     dropped) are refused.
//   - crash → crash (schedule.EvCrash), Type "crash".
//   - restart, timeout and request(v) of a put → the step's own event,
//     recorded when the step starts: restart (schedule.EvRestart), timeout
//     (schedule.EvTimeout), request (schedule.EvRequest, Args value, key), Type
//     the kind. The replica's first report of the same kind in the step
//     completes it (its params are merged into the Args) instead of
//     becoming a second event: raftkv reports restart (term, vote, commit,
//     snapindex, lastindex), timeout (term) and request (value).
//   - request(v) of a get → "read", Type "read", Args value, key: not a
//     schedule.EvRequest, which a raft mapper maps to a proposal.
//   - client answers → response (schedule.EvResponse), Node the process
//     asked, Type "put" or "get", Args value, key, status (HTTP), out (a
//     get's value). They are recorded after the last step (Step is the
//     number of steps; an interrupted execution's: the step it stopped
//     in), in request order: when an answer arrives depends on how the
//     replica's goroutines and the fuzzer's are scheduled, and its place
//     among the steps would make traces differ from run to run
//     (System.History has the times and steps). Requests that end without
//     an answer (cancelled, timed out, connection lost) have no event.
//   - a replica that exits by itself → "exit", Type "exit", Args status
//     ("status 2", "signal killed"); it is crashed from then on.
//   - skip (schedule.EvSkip): Type says why the step could not run.
//
// Args are in a fixed order, the Raft event vocabulary's (package
// schedule: RaftMessageArgs, RaftEventArgs): for messages the etcdraft
// order term, logterm, index, commit, reject, rejecthint, entries, vote,
// snapindex, snapterm; for role term; commit index; apply index, term,
// data; snapshot and install index, term; restart term, vote, commit,
// snapindex, lastindex; timeout term; request and proposal value; then any
// other params sorted by name. Numbers are integers (a fraction is kept as a
// string), booleans 0/1, objects and arrays their compact JSON.
//
// # Failures
//
// By Kind (schedule.FailureLinearizability, FailureExit, FailureRestart,
// FailureUnresponsive):
//
//   - "linearizability", signature "linearizability: kv": the execution's
//     client history (System.History) is not linearizable for a key-value
//     store, checked with porcupine per key. Puts without a known outcome
//     (no answer, an error status) may take effect at any time after their
//     call or never (porcupine: return at infinity); gets without an
//     answer are left out. The Detail holds the history as JSON
//     (HistoryFromDetail reads it back, WriteVisualization draws it) and the
//     replicas' output.
//   - "exit": a replica exited by itself; signature "exit: " + the first
//     panic or fatal error line of its stderr (digits as N), else its
//     status.
//   - "restart": a restarted replica could not start or was not ready in
//     time.
//   - "unresponsive": a replica did not answer a delivery or a timeout
//     within call_timeout.
//
// Each failure's Detail ends with what every replica printed (stdout and
// stderr, the last Options.OutputLimit bytes of each, restarts marked);
// System.Output has the same for the last execution.
//
// # Leftovers
//
// The process groups a fuzzer starts and its directories are recorded
// under Options.StateDir (os.TempDir()/modelfuzz-process by default, see
// internal/osproc). A fuzzer killed with SIGKILL cannot stop its replicas; the
// next NewFactory on the same state directory kills the groups of every
// owner that is no longer alive (checked by pid and start time) and
// removes its directories. Callers close Systems (System.Close) or the
// Factory (Factory.Close, which closes all its Systems) when done.
package process
