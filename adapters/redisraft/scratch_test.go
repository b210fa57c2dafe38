package redisraft

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/schedule"
)

func TestScratch(t *testing.T) {
	fac := testFactory(t, nil)
	sys, err := fac.NewSystem()
	require.NoError(t, err)
	in := steps(timeout(0), deliver(1, 4), timeout(1), deliver(1, 3), deliver(1, 1), deliver(2, 5), crash(1), restart(1))
	ex, err := sys.Execute(in)
	require.NoError(t, err)
	fmt.Println(schedule.Timeline(fac.Spec(), in, ex))
}
