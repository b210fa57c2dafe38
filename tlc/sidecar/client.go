package sidecar

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/modelfuzz/modelfuzz/tlc/sim"
)

// Client talks to a sidecar server. It keeps connections alive between
// requests and is safe for concurrent use.
type Client struct {
	base    string
	auth    string
	timeout time.Duration
	hc      *http.Client
}

// NewClient returns a client of the server at baseURL
// ("http://127.0.0.1:PORT") with its token. timeout bounds each request
// (0: no bound but the context's).
func NewClient(baseURL, token string, timeout time.Duration) *Client {
	tr := &http.Transport{
		Proxy:               nil, // loopback: never through a proxy
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        64,
		MaxIdleConnsPerHost: 64,
		IdleConnTimeout:     90 * time.Second,
	}
	return &Client{
		base:    strings.TrimRight(baseURL, "/"),
		auth:    "Bearer " + token,
		timeout: timeout,
		hc:      &http.Client{Transport: tr},
	}
}

// URL returns the server's base URL.
func (c *Client) URL() string { return c.base }

// CloseIdleConnections closes the connections kept alive.
func (c *Client) CloseIdleConnections() { c.hc.CloseIdleConnections() }

// Simulate runs req on the server. A 422 answer for an unknown action is
// not an error: it is a Result with that divergence, as in process.
func (c *Client) Simulate(ctx context.Context, req *sim.Request) (*sim.Result, error) {
	body, err := appendRequest(make([]byte, 0, 64+48*len(req.Actions)), req)
	if err != nil {
		return nil, fmt.Errorf("sidecar: encoding the request: %w", err)
	}
	status, resp, err := c.do(ctx, http.MethodPost, PathSimulate, body)
	if err != nil {
		return nil, err
	}
	if status == http.StatusOK {
		if res, ok := decodeResultFast(resp); ok {
			return res, nil
		}
	}
	var out errorBody
	if status == http.StatusOK || status == http.StatusUnprocessableEntity {
		out.Result = &sim.Result{}
		if err := json.Unmarshal(resp, &out); err != nil {
			if status == http.StatusOK {
				return nil, &answerError{fmt.Errorf("sidecar: decoding the answer: %w", err)}
			}
			return nil, statusError(status, resp)
		}
		if status == http.StatusOK || out.Divergence != nil {
			return out.Result, setKeys(out.Result)
		}
	}
	return nil, statusError(status, resp)
}

// SimulateBatch sends several requests in one round trip.
func (c *Client) SimulateBatch(ctx context.Context, reqs []*sim.Request) ([]*sim.Result, error) {
	body, err := appendBatch(make([]byte, 0, 256*len(reqs)), reqs)
	if err != nil {
		return nil, fmt.Errorf("sidecar: encoding the batch: %w", err)
	}
	status, resp, err := c.do(ctx, http.MethodPost, PathSimulateBatch, body)
	if err != nil {
		return nil, err
	}
	if status != http.StatusOK {
		return nil, statusError(status, resp)
	}
	res, err := decodeBatchResults(resp, len(reqs))
	if err != nil {
		return nil, &answerError{err}
	}
	return res, nil
}

// setKeys fills res.Keys from the states' hex keys, as sim does.
func setKeys(res *sim.Result) error {
	if res.States == nil {
		res.States = []sim.State{}
	}
	if res.Violations == nil {
		res.Violations = []sim.Violation{}
	}
	if len(res.States) == 0 {
		return nil
	}
	res.Keys = make([]uint64, len(res.States))
	for i, st := range res.States {
		k, err := strconv.ParseUint(st.Key, 16, 64)
		if err != nil {
			return &answerError{fmt.Errorf("sidecar: state %d: bad key %q", i, st.Key)}
		}
		res.Keys[i] = k
	}
	return nil
}

// Health asks whether the server is up.
func (c *Client) Health(ctx context.Context) (*Health, error) {
	var h Health
	if err := c.get(ctx, PathHealth, &h); err != nil {
		return nil, err
	}
	return &h, nil
}

// Model describes the server's model.
func (c *Client) Model(ctx context.Context) (*ModelInfo, error) {
	var m ModelInfo
	if err := c.get(ctx, PathModel, &m); err != nil {
		return nil, err
	}
	return &m, nil
}

func (c *Client) get(ctx context.Context, path string, out any) error {
	status, resp, err := c.do(ctx, http.MethodGet, path, nil)
	if err != nil {
		return err
	}
	if status != http.StatusOK {
		return statusError(status, resp)
	}
	if err := json.Unmarshal(resp, out); err != nil {
		return &answerError{fmt.Errorf("sidecar: decoding the answer to %s: %w", path, err)}
	}
	return nil
}

// do sends one request and reads the whole answer. Its errors are the
// transport's: the server could not be reached or did not answer in time.
func (c *Client) do(ctx context.Context, method, path string, body []byte) (int, []byte, error) {
	if c.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	hreq, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return 0, nil, fmt.Errorf("sidecar: %w", err)
	}
	hreq.Header.Set("Authorization", c.auth)
	if body != nil {
		hreq.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(hreq)
	if err != nil {
		return 0, nil, fmt.Errorf("sidecar: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, fmt.Errorf("sidecar: reading the answer to %s %s: %w", method, path, err)
	}
	return resp.StatusCode, data, nil
}

// statusError makes the error of a non-success answer, with the server's
// message when it gave one.
func statusError(status int, body []byte) error {
	var e struct {
		Error string `json:"error"`
	}
	msg := strings.TrimSpace(string(body))
	if json.Unmarshal(body, &e) == nil && e.Error != "" {
		msg = e.Error
	}
	if len(msg) > 500 {
		msg = msg[:500] + "..."
	}
	return &StatusError{Code: status, Message: msg}
}

// answerError is an answer that arrived whole but makes no sense: a bug
// of the server, that asking again would not cure.
type answerError struct{ err error }

func (e *answerError) Error() string { return e.err.Error() }
func (e *answerError) Unwrap() error { return e.err }

// transient reports whether err is the transport's (the server is gone,
// hung or unreachable) rather than an answer: a restart may cure it.
func transient(err error) bool {
	var se *StatusError
	var ae *answerError
	return err != nil && !errors.As(err, &se) && !errors.As(err, &ae)
}
