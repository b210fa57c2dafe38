//go:build !with_tla

package main

import (
	"path/filepath"
	"testing"
)

// A binary built without the library's trace points says how to get them.
func TestRunEtcdraftSpecNeedsTag(t *testing.T) {
	oneLineError(t, modelfuzz(t, "run", "--model", "etcdraft.tla", "--iterations", "1", "--corpus", filepath.Join(t.TempDir(), "c")), "-tags with_tla")
}
