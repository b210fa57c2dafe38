package schedule

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestBlankNumbers(t *testing.T) {
	require.Equal(t, "worker-N: task N of N", BlankNumbers("worker-2: task 14 of 20"))
}
