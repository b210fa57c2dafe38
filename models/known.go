package models

import (
	"embed"
	"io/fs"
)

// The known disagreements modelfuzz ships for the specs it validates
// traces against: known/etcdraft.json names those of etcd raft's
// Traceetcdraft.tla with the library, and known/EtcdraftKnown.tla holds
// their witnesses (docs/known.md).
//
//go:embed known/*.json known/*.tla
var known embed.FS

// EtcdraftKnown is the file of etcd raft's known disagreements.
const EtcdraftKnown = "etcdraft.json"

// KnownFiles are the shipped known-disagreements files and the modules
// they name, by file name.
func KnownFiles() map[string][]byte {
	out := map[string][]byte{}
	ents, _ := fs.ReadDir(known, "known")
	for _, e := range ents {
		data, err := known.ReadFile("known/" + e.Name())
		if err == nil {
			out[e.Name()] = data
		}
	}
	return out
}
