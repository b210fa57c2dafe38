package fuzzer_test

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/record"
)

// countingLearner "learns" how many batches it has seen, in one entry.
type countingLearner struct {
	batches  uint64
	restored []record.Learned
}

func (l *countingLearner) Learned() []record.Learned {
	l.batches++
	return []record.Learned{{Table: "count", State: 1, Value: binary.BigEndian.AppendUint64(nil, l.batches)}}
}

func (l *countingLearner) Restore(ls []record.Learned) error {
	l.restored = ls
	for _, e := range ls {
		if e.Table == "count" && e.State == 1 {
			l.batches = binary.BigEndian.Uint64(e.Value)
		}
	}
	return nil
}

// A campaign commits what its strategy learned with every batch, and a
// continued campaign gives it back before its first execution.
func TestLearnerResumes(t *testing.T) {
	dir := t.TempDir()
	first := &countingLearner{}
	runCampaign(t, dir, campaignSetup{workers: 2, tasks: 2, strategy: "random", seed: 1, iterations: 200, learner: first})
	require.Greater(t, first.batches, uint64(1))
	require.Empty(t, first.restored)

	second := &countingLearner{}
	f, st := newCampaign(t, dir, campaignSetup{workers: 2, tasks: 2, strategy: "random", seed: 1, iterations: 300, learner: second})
	defer st.Close()
	require.NotNil(t, f)
	require.Len(t, second.restored, 1)
	require.Equal(t, first.batches, second.batches, "the resumed learner starts from the stored count")
}
