// Package sidecar serves trace simulation (tlc/sim) over HTTP, and runs
// and supervises that server as a subprocess: the model engine as a
// sidecar of the fuzzer (`modelfuzz tlc serve`).
//
// The protocol is JSON under /v1/, on loopback only, and every request
// carries the per-launch bearer token:
//
//	POST /v1/simulate  a sim.Request; answers a sim.Result
//	GET  /v1/health    {"status":"ok","model":NAME,"requests":N}
//	GET  /v1/model     the module, its variables, actions and invariants
//
// Errors answer {"error": MESSAGE}. A request naming an action the model
// does not have answers 422 with the simulation result up to it and its
// divergence, which the Client turns back into a plain Result, so that a
// Simulator in process (InProc), a Client and a supervised Process give
// the same answers.
//
// The package knows nothing of the fuzzer; the fuzzer depends on the
// Simulator interface.
package sidecar
