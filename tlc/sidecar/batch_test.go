package sidecar

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/tlc/sim"
)

// A batch answers each request as /v1/simulate would, in order, unknown
// actions included (as divergences of their own result).
func TestBatchAnswersAsSingleRequests(t *testing.T) {
	s := newSim(t, "microbench.tla", microbenchConsts...)
	_, c := newTestServer(t, s, ServerOptions{})
	reqs := []*sim.Request{
		{Actions: microbenchTrace(40, 2), States: boolp(false)},
		{Actions: []sim.Action{act("Start", "p", 1), act("Bogus")}, States: boolp(false)},
		{Actions: []sim.Action{act("Execute", "w", 2, "r", 1, "k", 1)}},
		{},
	}
	got, err := c.SimulateBatch(context.Background(), reqs)
	require.NoError(t, err)
	require.Len(t, got, len(reqs))
	for i, r := range reqs {
		want, err := InProc{s}.Simulate(context.Background(), r)
		require.NoError(t, err)
		require.Equal(t, want.Keys, got[i].Keys, "request %d", i)
		require.Equal(t, want.Divergence, got[i].Divergence, "request %d", i)
		require.Equal(t, want.Violations, got[i].Violations, "request %d", i)
		require.Equal(t, len(want.States), len(got[i].States), "request %d", i)
	}
	require.Equal(t, "Bogus", got[1].Divergence.Action)
}

func TestBatchBadRequests(t *testing.T) {
	s := newSim(t, "microbench.tla", microbenchConsts...)
	hs, _ := newTestServer(t, s, ServerOptions{})
	for body, want := range map[string]string{
		`{"requests": 3}`: `an array (found`,
		`{"reqs": []}`:    `reqs`,
		`{"requests": [{"actions": [], "x": 1}]}`: `request 0: invalid request: unknown field`,
		`[`: "invalid JSON",
	} {
		req, _ := http.NewRequest(http.MethodPost, hs.URL+PathSimulateBatch, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+testToken)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		b := make([]byte, 4096)
		n, _ := resp.Body.Read(b)
		resp.Body.Close()
		require.Equal(t, http.StatusBadRequest, resp.StatusCode, body)
		require.Contains(t, string(b[:n]), want, body)
	}
}

// In process, a batch runs on several cores and answers, in order, what
// each request answers alone on a fresh simulator (the caches it shares
// change nothing).
func TestInProcBatchAnswersAsSingleRequests(t *testing.T) {
	var reqs []*sim.Request
	for n := range 24 {
		reqs = append(reqs, &sim.Request{Actions: microbenchTrace(10+n*7, 1+n%3), States: boolp(n%2 == 0)})
	}
	reqs = append(reqs, &sim.Request{Actions: []sim.Action{act("Start", "p", 1), act("Bogus")}})
	got, err := InProc{newSim(t, "microbench.tla", microbenchConsts...)}.SimulateBatch(context.Background(), reqs)
	require.NoError(t, err)
	require.Len(t, got, len(reqs))
	for i, r := range reqs {
		want, err := InProc{newSim(t, "microbench.tla", microbenchConsts...)}.Simulate(context.Background(), r)
		require.NoError(t, err)
		require.Equal(t, want, got[i], "request %d", i)
	}
	require.Equal(t, "Bogus", got[len(reqs)-1].Divergence.Action)
}
