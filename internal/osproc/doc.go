// Package osproc runs the processes of a system under test that is made of
// real OS processes: each started in a process group of its own, killed as
// a whole with SIGKILL, its output kept (the last bytes of each stream),
// and recorded on disk so that a fuzzer killed before it could clean up
// has its leftovers removed by the next one (Registry).
//
// The adapters of real processes (adapters/process, adapters/redisraft,
// adapters/etcd) share it. It must not import anything of modelfuzz.
package osproc
