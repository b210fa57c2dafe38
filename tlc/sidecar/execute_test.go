package sidecar

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/tlc/sim"
)

// TestExecuteProtocol: the reference fuzzer's /execute, with its field
// names in either case, needs the token unless the server opens it, and
// a body that is not an array of events is one clear error.
func TestExecuteProtocol(t *testing.T) {
	s := newSim(t, "microbench.tla", microbenchConsts...)
	post := func(url, body string) (int, string) {
		resp, err := http.Post(url+PathExecute, "application/json", strings.NewReader(body))
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, string(b)
	}
	closed, _ := newTestServer(t, s, ServerOptions{})
	code, _ := post(closed.URL, `[{"Reset":true}]`)
	require.Equal(t, http.StatusUnauthorized, code)

	open, _ := newTestServer(t, s, ServerOptions{OpenExecute: true})
	trace := microbenchTrace(30, 2)
	events := Events(&sim.Request{Actions: trace})
	// Field names in lower case, as the issue writes them, and an event
	// after the reset, which is not part of the execution.
	raw, err := json.Marshal(events)
	require.NoError(t, err)
	lower := strings.NewReplacer(`"Name"`, `"name"`, `"Reset"`, `"reset"`).Replace(string(raw))
	lower = strings.TrimSuffix(lower, "]") + `,{"Name":"Start","Params":{"p":1}}]`
	code, body := post(open.URL, lower)
	require.Equal(t, http.StatusOK, code, body)
	var a ExecuteAnswer
	require.NoError(t, json.Unmarshal([]byte(body), &a))

	// The same actions through /v1/simulate give the same states.
	res, err := s.Simulate(&sim.Request{Actions: trace})
	require.NoError(t, err)
	require.Greater(t, len(res.Keys), 3)
	require.Len(t, a.Keys, len(res.Keys))
	require.Len(t, a.States, len(res.Keys))
	for i, k := range res.Keys {
		require.Equal(t, int64(k), a.Keys[i])
		require.True(t, strings.HasPrefix(a.States[i], "/\\ started = "), a.States[i])
	}

	for _, bad := range []string{`{"Name":"Start"}`, `[{"Params":{}}]`, `not json`} {
		code, body = post(open.URL, bad)
		require.Equal(t, http.StatusBadRequest, code, bad)
		require.NotContains(t, strings.TrimSpace(body), "\n")
		require.Contains(t, body, "invalid request")
	}
}
