package etcd

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// The client speaks etcd's v3 API through its gRPC gateway: JSON over
// HTTP on the client port, which every release from 3.3 on serves at
// /v3/. Byte fields are base64, 64-bit integers decimal strings.

type v3client struct {
	hc *http.Client
}

func newV3Client() *v3client {
	return &v3client{hc: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}}
}

// call posts req to the member's client address and decodes the answer
// into out. A non-200 answer is an error carrying etcd's message.
func (c *v3client) call(ctx context.Context, addr, pth string, req, out any) error {
	b, err := json.Marshal(req)
	if err != nil {
		return err
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+addr+pth, bytes.NewReader(b))
	if err != nil {
		return err
	}
	hr.Header.Set("Content-Type", "application/json")
	resp, err := c.hc.Do(hr)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error   string `json:"error"`
			Message string `json:"message"`
		}
		_ = json.Unmarshal(body, &e)
		msg := e.Message
		if msg == "" {
			msg = e.Error
		}
		if msg == "" {
			msg = string(bytes.TrimSpace(body))
		}
		return &apiError{status: resp.StatusCode, msg: msg}
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("%s: %w", pth, err)
	}
	return nil
}

type apiError struct {
	status int
	msg    string
}

func (e *apiError) Error() string { return fmt.Sprintf("etcd %d: %s", e.status, e.msg) }

// num is a 64-bit integer the gateway writes as a string (or a number).
type num int64

func (n *num) UnmarshalJSON(b []byte) error {
	s := string(bytes.Trim(b, `"`))
	if s == "" || s == "null" {
		*n = 0
		return nil
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		u, uerr := strconv.ParseUint(s, 10, 64)
		if uerr != nil {
			return err
		}
		v = int64(u)
	}
	*n = num(v)
	return nil
}

type header struct {
	MemberID num `json:"member_id"`
	Revision num `json:"revision"`
	RaftTerm num `json:"raft_term"`
}

type kv struct {
	Key            []byte `json:"key"`
	Value          []byte `json:"value"`
	CreateRevision num    `json:"create_revision"`
	ModRevision    num    `json:"mod_revision"`
	Version        num    `json:"version"`
	Lease          num    `json:"lease"`
}

type rangeResp struct {
	Header header `json:"header"`
	Kvs    []kv   `json:"kvs"`
}

type putResp struct {
	Header header `json:"header"`
}

type deleteResp struct {
	Header  header `json:"header"`
	Deleted num    `json:"deleted"`
}

type txnResp struct {
	Header    header `json:"header"`
	Succeeded bool   `json:"succeeded"`
}

type leaseResp struct {
	Header header `json:"header"`
	ID     num    `json:"ID"`
}

type statusResp struct {
	Header           header `json:"header"`
	Version          string `json:"version"`
	Leader           num    `json:"leader"`
	RaftIndex        num    `json:"raftIndex"`
	RaftTerm         num    `json:"raftTerm"`
	RaftAppliedIndex num    `json:"raftAppliedIndex"`
}

type hashKVResp struct {
	Header          header `json:"header"`
	Hash            num    `json:"hash"`
	CompactRevision num    `json:"compact_revision"`
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func (c *v3client) put(ctx context.Context, addr, key, val string, lease int64) (putResp, error) {
	var r putResp
	req := map[string]any{"key": b64(key), "value": b64(val)}
	if lease != 0 {
		req["lease"] = strconv.FormatInt(lease, 10)
	}
	err := c.call(ctx, addr, "/v3/kv/put", req, &r)
	return r, err
}

func (c *v3client) get(ctx context.Context, addr, key string, serializable bool) (rangeResp, error) {
	var r rangeResp
	err := c.call(ctx, addr, "/v3/kv/range", map[string]any{"key": b64(key), "serializable": serializable}, &r)
	return r, err
}

// all reads every key, at a revision (0: the member's latest), from the
// member's own store.
func (c *v3client) all(ctx context.Context, addr string, rev int64) (rangeResp, error) {
	var r rangeResp
	req := map[string]any{"key": b64("\x00"), "range_end": b64("\x00"), "serializable": true}
	if rev > 0 {
		req["revision"] = strconv.FormatInt(rev, 10)
	}
	err := c.call(ctx, addr, "/v3/kv/range", req, &r)
	return r, err
}

func (c *v3client) del(ctx context.Context, addr, key string) (deleteResp, error) {
	var r deleteResp
	err := c.call(ctx, addr, "/v3/kv/deleterange", map[string]any{"key": b64(key)}, &r)
	return r, err
}

// cas puts val at key if its value is expect ("" : if the key is absent),
// in one transaction.
func (c *v3client) cas(ctx context.Context, addr, key, expect, val string) (txnResp, error) {
	var r txnResp
	cmp := map[string]any{"key": b64(key), "target": "VALUE", "result": "EQUAL", "value": b64(expect)}
	if expect == "" {
		cmp = map[string]any{"key": b64(key), "target": "VERSION", "result": "EQUAL", "version": "0"}
	}
	req := map[string]any{
		"compare": []any{cmp},
		"success": []any{map[string]any{"request_put": map[string]any{"key": b64(key), "value": b64(val)}}},
	}
	err := c.call(ctx, addr, "/v3/kv/txn", req, &r)
	return r, err
}

func (c *v3client) grant(ctx context.Context, addr string, ttl int64) (leaseResp, error) {
	var r leaseResp
	err := c.call(ctx, addr, "/v3/lease/grant", map[string]any{"TTL": strconv.FormatInt(ttl, 10)}, &r)
	return r, err
}

func (c *v3client) revoke(ctx context.Context, addr string, id int64) (putResp, error) {
	var r putResp
	err := c.call(ctx, addr, "/v3/lease/revoke", map[string]any{"ID": strconv.FormatInt(id, 10)}, &r)
	return r, err
}

func (c *v3client) status(ctx context.Context, addr string) (statusResp, error) {
	var r statusResp
	err := c.call(ctx, addr, "/v3/maintenance/status", map[string]any{}, &r)
	return r, err
}

// hashKV is the member's HashKV at rev; ok is false where the gateway
// does not serve it (3.4 declares HashKV and Hash at one path, and Hash
// answers).
func (c *v3client) hashKV(ctx context.Context, addr string, rev int64) (h hashKVResp, ok bool, err error) {
	err = c.call(ctx, addr, "/v3/maintenance/hashkv", map[string]any{"revision": strconv.FormatInt(rev, 10)}, &h)
	if ae, isAPI := err.(*apiError); isAPI && ae.status == http.StatusNotFound {
		return h, false, nil
	}
	return h, err == nil, err
}

func (c *v3client) moveLeader(ctx context.Context, addr string, target uint64) error {
	return c.call(ctx, addr, "/v3/maintenance/transfer-leadership", map[string]any{"targetID": strconv.FormatUint(target, 10)}, nil)
}

// withTimeout is a context for one call.
func withTimeout(d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), d)
}
