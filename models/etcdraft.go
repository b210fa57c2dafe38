package models

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
)

// RaftModule is the module whose tla/ folder holds etcd raft's own TLA+
// specs (etcdraft.tla, its trace spec Traceetcdraft.tla, MCetcdraft.tla).
// They are read from the Go module cache, never copied into this
// repository.
const RaftModule = "go.etcd.io/raft/v3"

// EtcdraftSpec is the name that --model gives etcd raft's own spec: a
// campaign validates each execution's trace against Traceetcdraft.tla.
const EtcdraftSpec = "etcdraft.tla"

// IsEtcdraftSpec reports whether a --model value names etcd raft's own
// spec: the name etcdraft.tla (when no such file exists), or a file whose
// base name is Traceetcdraft.tla.
func IsEtcdraftSpec(model string) bool {
	if filepath.Base(model) == "Traceetcdraft.tla" {
		return true
	}
	return strings.TrimSuffix(model, ".tla") == "etcdraft" && !fileExists(model)
}

// EtcdraftTraceSpec is the trace spec a --model value that IsEtcdraftSpec
// names: the file itself, or Traceetcdraft.tla in the module cache.
func EtcdraftTraceSpec(model string) string {
	if filepath.Base(model) == "Traceetcdraft.tla" {
		return model
	}
	return filepath.Join(RaftTLADir(), "Traceetcdraft.tla")
}

// RaftTLADir is the tla/ folder of the raft module this binary was built
// with: in the module cache (which may not hold it), or in the directory
// a replace directive put in its place.
func RaftTLADir() string {
	version := ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path != RaftModule {
				continue
			}
			version = d.Version
			if r := d.Replace; r != nil {
				if r.Version == "" || r.Version == "(devel)" {
					// Replaced by a directory (a patched copy of the
					// module): its own tla/ folder.
					return filepath.Join(r.Path, "tla")
				}
				version = r.Version
			}
		}
	}
	if version == "" {
		version = "v3.7.0"
	}
	cache := os.Getenv("GOMODCACHE")
	if cache == "" {
		gopath := os.Getenv("GOPATH")
		if gopath == "" {
			home, _ := os.UserHomeDir()
			gopath = filepath.Join(home, "go")
		}
		cache = filepath.Join(filepath.SplitList(gopath)[0], "pkg", "mod")
	}
	return filepath.Join(cache, RaftModule+"@"+version, "tla")
}
