//go:build !with_tla

package etcdraft

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Without the library's trace points, recording its trace is refused by
// name, with the way to get them.
func TestSpecTraceNeedsTag(t *testing.T) {
	cfg := DefaultConfig()
	cfg.SpecTrace = true
	_, err := NewFactory(cfg)
	require.ErrorContains(t, err, "-tags with_tla")
}
