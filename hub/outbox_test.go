package hub

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A worker whose hub is out of reach holds at most maxOutboxBytes of
// coverage and stats in memory; its inputs, bugs and statuses stay, in
// order, and what send publishes comes off the front even when some of it
// was shed meanwhile.
func TestOutboxIsBounded(t *testing.T) {
	w := &Worker{wake: make(chan struct{}, 1)}
	big := make([]byte, 1<<20)
	w.enqueue(pub{subject: subjectInput + "a", id: "in0", data: []byte("x")})
	status := []byte("s")
	w.enqueue(pub{status: status})
	for i := range 100 {
		w.enqueue(pub{subject: subjectCov + "a", id: "cov" + strings.Repeat("i", i), data: big},
			pub{subject: subjectInput + "a", id: "in" + strings.Repeat("i", i+1), data: []byte("y")})
	}
	require.LessOrEqual(t, w.outBytes, maxOutboxBytes)
	require.Positive(t, w.dropped)
	inputs := 0
	for _, p := range w.out {
		if strings.HasPrefix(p.subject, subjectInput) {
			inputs++
		}
	}
	require.Equal(t, 101, inputs, "an input was shed")
	require.Equal(t, "in0", w.out[0].id)
	require.NotNil(t, w.out[1].status)

	// send took the first three before the shedding; the ones still
	// there come off, the rest stays in order.
	burst := append([]pub(nil), w.out[:3]...)
	w.remove(burst)
	require.Equal(t, len(burst), 3)
	require.NotEqual(t, "in0", w.out[0].id)
	total := 0
	for _, p := range w.out {
		total += len(p.data)
	}
	require.Equal(t, total, w.outBytes)
}
