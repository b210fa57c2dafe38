// Package tlcjava runs TLC itself as the model engine: a small Java
// server of ours (java/ModelfuzzTLC.java) on TLC's public API, compiled by
// javac against the user's tla2tools.jar on first use and cached by the
// jar's hash, launched and supervised as the native sidecar is
// (tlc/sidecar), and answering the same requests. TLC evaluates; the keys
// of the abstract states are computed here from the VIEW values TLC
// returns, with the native engine's fingerprint, so that the fuzzer, the
// mapper and the corpus cannot tell the engines apart.
//
// It also holds the client of the reference fuzzer's protocol (POST
// /execute), for driving a TLC server of the reference implementation.
//
// Like tlc/sidecar, it knows nothing of the fuzzer.
package tlcjava
