package sidecar

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/modelfuzz/modelfuzz/tlc/sim"
)

// post sends a raw request and returns the status and decoded JSON body.
func post(t *testing.T, url, token, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+PathSimulate, strings.NewReader(body))
	require.NoError(t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return send(t, req)
}

func send(t *testing.T, req *http.Request) (int, map[string]any) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	var out map[string]any
	require.NoError(t, json.Unmarshal(data, &out), "%s", data)
	return resp.StatusCode, out
}

func TestHealthAndModel(t *testing.T) {
	s := newSim(t, "microbench.tla", microbenchConsts...)
	_, c := newTestServer(t, s, ServerOptions{})
	ctx := context.Background()

	h, err := c.Health(ctx)
	require.NoError(t, err)
	assert.Equal(t, &Health{Status: "ok", Model: "microbench", Requests: 0}, h)

	m, err := c.Model(ctx)
	require.NoError(t, err)
	assert.Equal(t, "microbench", m.Module)
	assert.Equal(t, []string{"started", "registered", "reqs", "rejected", "buffer", "lastFlush"}, m.Variables)
	assert.Equal(t, []string{"TypeOK", "BufferBound"}, m.Invariants)
	assert.True(t, m.View)
	assert.Contains(t, m.Actions, ActionInfo{Name: "Serve", Params: []string{"v", "r", "w"}})
	assert.Contains(t, m.Actions, ActionInfo{Name: "Start", Params: []string{"p"}})

	_, err = c.Simulate(ctx, &sim.Request{Actions: microbenchTrace(10, 2)})
	require.NoError(t, err)
	h, err = c.Health(ctx)
	require.NoError(t, err)
	assert.EqualValues(t, 1, h.Requests)
}

func TestSimulateDiverges(t *testing.T) {
	s := newSim(t, "microbench.tla", microbenchConsts...)
	_, c := newTestServer(t, s, ServerOptions{})
	// RecvRegister(2) before Start(2): not enabled.
	res, err := c.Simulate(context.Background(), &sim.Request{
		Actions: []sim.Action{act("Start", "p", 1), act("RecvRegister", "p", 2), act("Start", "p", 2)},
		States:  boolp(false),
	})
	require.NoError(t, err)
	require.NotNil(t, res.Divergence)
	assert.Equal(t, sim.Divergence{Index: 1, Action: "RecvRegister", Reason: "not enabled", Conjunct: "p \\in (started \\ registered)", At: "microbench.tla:54:10", Call: "RecvRegister(p=2)"}, *res.Divergence)
	require.NotEmpty(t, res.States)
	assert.Nil(t, res.States[0].State, "include_states false")
	require.Len(t, res.Keys, len(res.States))
	assert.Empty(t, res.Violations)
}

func TestBadRequestsKeepTheServerServing(t *testing.T) {
	s := newSim(t, "microbench.tla", microbenchConsts...)
	hs, c := newTestServer(t, s, ServerOptions{MaxBody: 1024})
	good := `{"actions":[{"name":"Start","params":{"p":1}}],"include_states":false}`
	cases := []struct {
		name, token, body string
		status            int
		msg               string // in the error message
	}{
		{"invalid JSON", testToken, `{"actions":[{"name":"Start",}]}`, 400, "invalid JSON at offset 28: invalid character '}'"},
		{"truncated", testToken, `{"actions":[`, 400, "invalid JSON at offset 12: unexpected end of input"},
		{"empty", testToken, ``, 400, "empty request body"},
		{"not an object", testToken, `[1]`, 400, "want a JSON object"},
		{"trailing data", testToken, good + ` {}`, 400, "data after the request object"},
		{"unknown field", testToken, `{"actions":[],"action":[]}`, 400, `unknown field "action"`},
		{"unknown action field", testToken, `{"actions":[{"name":"Start","param":{"p":1}}]}`, 400, `unknown field "param"`},
		{"wrong type", testToken, `{"actions":{"name":"Start"}}`, 400, "invalid request at offset 11: actions: want an array, not a JSON object"},
		{"missing token", "", good, 401, "missing bearer token"},
		{"wrong token", "not-the-token", good, 401, "wrong token"},
		{"over the limit", testToken, `{"actions":[` + strings.Repeat(`{"name":"Start","params":{"p":1}},`, 40) + `]}`, 413, "over the limit of 1024 bytes"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, body := post(t, hs.URL, tc.token, tc.body)
			assert.Equal(t, tc.status, status, "%v", body)
			assert.Contains(t, body["error"], tc.msg)
			// The server still serves.
			res, err := c.Simulate(context.Background(), &sim.Request{Actions: microbenchTrace(6, 2)})
			require.NoError(t, err)
			assert.Nil(t, res.Divergence)
			assert.NotEmpty(t, res.Keys)
		})
	}
}

func TestUnauthorizedEverywhere(t *testing.T) {
	s := newSim(t, "microbench.tla", microbenchConsts...)
	hs, _ := newTestServer(t, s, ServerOptions{})
	for _, path := range []string{PathHealth, PathModel, PathSimulate, "/nope"} {
		for _, auth := range []string{"", "Bearer", "Basic dGVzdA==", "Bearer " + testToken + "x", "Bearer test-toke"} {
			req, err := http.NewRequest(http.MethodGet, hs.URL+path, nil)
			require.NoError(t, err)
			if auth != "" {
				req.Header.Set("Authorization", auth)
			}
			status, body := send(t, req)
			assert.Equal(t, http.StatusUnauthorized, status, "%s %q", path, auth)
			assert.NotEmpty(t, body["error"])
		}
	}
}

func TestMethodsAndPaths(t *testing.T) {
	s := newSim(t, "microbench.tla", microbenchConsts...)
	hs, _ := newTestServer(t, s, ServerOptions{})
	for _, tc := range []struct {
		method, path string
		status       int
	}{
		{http.MethodGet, PathSimulate, 405},
		{http.MethodPost, PathHealth, 405},
		{http.MethodDelete, PathModel, 405},
		{http.MethodGet, "/v2/health", 404},
	} {
		req, err := http.NewRequest(tc.method, hs.URL+tc.path, nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+testToken)
		status, body := send(t, req)
		assert.Equal(t, tc.status, status, "%s %s: %v", tc.method, tc.path, body)
		assert.NotEmpty(t, body["error"])
	}
}

func TestUnknownActionIs422WithDivergence(t *testing.T) {
	s := newSim(t, "microbench.tla", microbenchConsts...)
	hs, c := newTestServer(t, s, ServerOptions{})
	actions := append(microbenchTrace(3, 2), act("Foo", "x", 1), act("Start", "p", 1))
	body, err := json.Marshal(&sim.Request{Actions: actions})
	require.NoError(t, err)

	status, raw := post(t, hs.URL, testToken, string(body))
	assert.Equal(t, http.StatusUnprocessableEntity, status)
	assert.Equal(t, `unknown action "Foo" at index 3`, raw["error"])
	assert.Equal(t, map[string]any{"index": 3.0, "action": "Foo", "reason": `the model has no action "Foo"`}, raw["divergence"])

	// The client makes it the Result the simulator gives in process.
	res, err := c.Simulate(context.Background(), &sim.Request{Actions: actions})
	require.NoError(t, err)
	want, err := s.Simulate(&sim.Request{Actions: actions})
	require.NoError(t, err)
	assert.Equal(t, want, res)
	assert.NotEmpty(t, res.Keys)

	// An earlier divergence comes first: then it is a plain answer.
	actions[0] = act("RecvRegister", "p", 3)
	res, err = c.Simulate(context.Background(), &sim.Request{Actions: actions})
	require.NoError(t, err)
	assert.Equal(t, 0, res.Divergence.Index)
}

func TestSimulationErrorIs500(t *testing.T) {
	// VIEW fails to evaluate in every state: Simulate itself fails.
	s := newSim(t, "testdata/badview.tla")
	hs, c := newTestServer(t, s, ServerOptions{})
	status, body := post(t, hs.URL, testToken, `{"actions":[]}`)
	assert.Equal(t, http.StatusInternalServerError, status)
	assert.Contains(t, body["error"], "VIEW")
	_, err := c.Simulate(context.Background(), &sim.Request{})
	var se *StatusError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, 500, se.Code)
	assert.False(t, transient(err), "an answer is not retried")
}

func TestClientErrors(t *testing.T) {
	s := newSim(t, "microbench.tla", microbenchConsts...)
	hs, _ := newTestServer(t, s, ServerOptions{})
	c := NewClient(hs.URL, "wrong", 0)
	_, err := c.Health(context.Background())
	require.EqualError(t, err, "sidecar: 401 Unauthorized: wrong token")
	assert.False(t, transient(err))

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	url := "http://" + ln.Addr().String()
	ln.Close()
	_, err = NewClient(url, testToken, 0).Simulate(context.Background(), &sim.Request{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "connection refused")
	assert.True(t, transient(err))
}

func TestNewServerNeedsAToken(t *testing.T) {
	_, err := NewServer(newSim(t, "microbench.tla"), ServerOptions{})
	require.Error(t, err)
}

func TestListenLoopback(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:0", "localhost:0", "[::1]:0"} {
		ln, err := ListenLoopback(addr)
		if err != nil && addr == "[::1]:0" {
			continue // no IPv6 here
		}
		require.NoError(t, err, addr)
		ip := ln.Addr().(*net.TCPAddr).IP
		assert.True(t, ip.IsLoopback(), addr)
		ln.Close()
	}
	for _, addr := range []string{":0", "0.0.0.0:0", "[::]:0", "8.8.8.8:0", "127.0.0.1"} {
		_, err := ListenLoopback(addr)
		require.Error(t, err, addr)
		assert.NotContains(t, err.Error(), "\n")
	}
}

func TestDecodeRequest(t *testing.T) {
	req, err := DecodeRequest([]byte(`{"actions":[{"name":"A","params":{"n":12345678901234567,"s":"x","t":[1,true]}}],"init":{"x":1},"include_states":false}`))
	require.NoError(t, err)
	assert.Equal(t, int64(12345678901234567), req.Actions[0].Params["n"], "numbers stay exact")
	assert.Equal(t, int64(1), req.Init["x"])
	require.NotNil(t, req.States)
	assert.False(t, *req.States)
}
