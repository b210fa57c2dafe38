package sidecar

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/modelfuzz/modelfuzz/tlc/sim"
)

// ServerOptions configure a Server.
type ServerOptions struct {
	// Token is the bearer token every request must carry (required).
	Token string
	// MaxBody bounds a request body in bytes (0: DefaultMaxBody).
	MaxBody int64
	// Logger receives diagnostics (default: none).
	Logger hclog.Logger
	// OpenExecute answers POST /execute without the token, as the
	// reference fuzzer's clients send none.
	OpenExecute bool
}

// Server is the sidecar's HTTP handler: it answers the /v1/ protocol with
// one sim.Simulator. It is safe for concurrent use.
type Server struct {
	sim      *sim.Simulator
	tokenSum [sha256.Size]byte
	maxBody  int64
	log      hclog.Logger
	health   Health
	model    ModelInfo
	requests atomic.Int64
	open     bool
}

// NewServer returns a server of s.
func NewServer(s *sim.Simulator, opt ServerOptions) (*Server, error) {
	if opt.Token == "" {
		return nil, errors.New("sidecar: no token")
	}
	if opt.MaxBody <= 0 {
		opt.MaxBody = DefaultMaxBody
	}
	if opt.Logger == nil {
		opt.Logger = hclog.NewNullLogger()
	}
	m := s.Model()
	srv := &Server{
		sim:      s,
		tokenSum: sha256.Sum256([]byte(opt.Token)),
		maxBody:  opt.MaxBody,
		log:      opt.Logger,
		open:     opt.OpenExecute,
		health:   Health{Status: "ok", Model: m.Module.Name},
		model: ModelInfo{
			Module:     m.Module.Name,
			Variables:  append([]string{}, m.Vars...),
			Actions:    []ActionInfo{},
			Invariants: m.InvariantNames(),
			View:       m.HasView(),
		},
	}
	for _, a := range s.Actions() {
		srv.model.Actions = append(srv.model.Actions, ActionInfo{Name: a.Name, Params: append([]string{}, a.Params...)})
	}
	return srv, nil
}

// Serve answers requests on ln until ctx is done, then shuts down
// gracefully: requests in flight finish (for at most 5 s).
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          s.log.StandardLogger(&hclog.StandardLoggerOptions{InferLevels: true}),
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	s.log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		hs.Close()
	}
	<-errc
	return nil
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rw := &statusWriter{ResponseWriter: w}
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			// A bug, not a bad request: answer it, keep serving.
			s.log.Error("panic", "path", r.URL.Path, "panic", p)
			if rw.status == 0 {
				writeError(rw, http.StatusInternalServerError, fmt.Sprintf("internal error: %v", p))
			}
		}
		s.log.Debug("request", "method", r.Method, "path", r.URL.Path, "status", rw.status, "duration", time.Since(start))
	}()
	if r.URL.Path == PathExecute && s.open {
		if allow(rw, r, http.MethodPost) {
			s.execute(rw, r)
		}
		return
	}
	if msg := s.authorize(r); msg != "" {
		rw.Header().Set("WWW-Authenticate", `Bearer realm="modelfuzz-tlc"`)
		writeError(rw, http.StatusUnauthorized, msg)
		return
	}
	switch r.URL.Path {
	case PathSimulate:
		if allow(rw, r, http.MethodPost) {
			s.simulate(rw, r)
		}
	case PathSimulateBatch:
		if allow(rw, r, http.MethodPost) {
			s.simulateBatch(rw, r)
		}
	case PathExecute:
		if allow(rw, r, http.MethodPost) {
			s.execute(rw, r)
		}
	case PathHealth:
		if allow(rw, r, http.MethodGet) {
			h := s.health
			h.Requests = s.requests.Load()
			writeJSON(rw, http.StatusOK, &h)
		}
	case PathModel:
		if allow(rw, r, http.MethodGet) {
			writeJSON(rw, http.StatusOK, &s.model)
		}
	default:
		writeError(rw, http.StatusNotFound, fmt.Sprintf("no such path %s (the protocol has %s, %s, %s and %s)", r.URL.Path, PathSimulate, PathHealth, PathModel, PathExecute))
	}
}

// authorize checks the bearer token in constant time; it returns why the
// request is refused, or "".
func (s *Server) authorize(r *http.Request) string {
	h := r.Header.Get("Authorization")
	scheme, tok, ok := strings.Cut(h, " ")
	if h == "" || !ok || !strings.EqualFold(scheme, "Bearer") {
		return "missing bearer token (Authorization: Bearer TOKEN)"
	}
	// Hashing first makes the comparison independent of the lengths too.
	sum := sha256.Sum256([]byte(strings.TrimSpace(tok)))
	if subtle.ConstantTimeCompare(sum[:], s.tokenSum[:]) != 1 {
		return "wrong token"
	}
	return ""
}

func allow(w http.ResponseWriter, r *http.Request, method string) bool {
	if r.Method == method {
		return true
	}
	w.Header().Set("Allow", method)
	writeError(w, http.StatusMethodNotAllowed, fmt.Sprintf("method %s not allowed on %s (use %s)", r.Method, r.URL.Path, method))
	return false
}

// readBody counts the request and reads its body within the size limit;
// on failure it has answered (413 or 400) and ok is false.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) (body []byte, ok bool) {
	s.requests.Add(1)
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.maxBody))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body over the limit of %d bytes", mbe.Limit))
			return nil, false
		}
		writeError(w, http.StatusBadRequest, "reading the request body: "+err.Error())
		return nil, false
	}
	return body, true
}

func (s *Server) simulate(w http.ResponseWriter, r *http.Request) {
	body, ok := s.readBody(w, r)
	if !ok {
		return
	}
	req, err := DecodeRequest(body)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	unknown := s.firstUnknownAction(req)
	res, err := s.sim.Simulate(req)
	if err != nil {
		s.log.Warn("simulation failed", "error", err)
		writeError(w, http.StatusInternalServerError, "simulation: "+err.Error())
		return
	}
	if d := res.Divergence; unknown >= 0 && d != nil && d.Index == unknown {
		// The request is wrong rather than the trace: say so with the
		// status, and still give the divergence, as in process.
		writeJSON(w, http.StatusUnprocessableEntity, &errorBody{
			Error:  fmt.Sprintf("unknown action %s at index %d", strconv.Quote(d.Action), d.Index),
			Result: res,
		})
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	w.Write(appendResult(make([]byte, 0, 256+64*len(res.States)), res))
}

// simulateBatch answers several simulate requests at once.
func (s *Server) simulateBatch(w http.ResponseWriter, r *http.Request) {
	body, ok := s.readBody(w, r)
	if !ok {
		return
	}
	reqs, err := decodeBatch(body)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	// The simulations of a batch are independent: run them on every core.
	results, errs := simulateAll(reqs, s.sim.Simulate)
	out := make([]byte, 0, 1024)
	out = append(out, `{"results":[`...)
	for i, res := range results {
		if errs[i] != nil {
			s.log.Warn("simulation failed", "error", errs[i])
			writeError(w, http.StatusInternalServerError, fmt.Sprintf("simulation of request %d: %v", i, errs[i]))
			return
		}
		if i > 0 {
			out = append(out, ',')
		}
		out = appendResult(out, res)
	}
	out = append(out, "]}"...)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	w.Write(out)
}

// firstUnknownAction returns the index of the first action that names no
// action operator nor definition of the model (as sim does), or -1.
func (s *Server) firstUnknownAction(req *sim.Request) int {
	for i, a := range req.Actions {
		if !s.knownAction(a.Name) {
			return i
		}
	}
	return -1
}

func (s *Server) knownAction(name string) bool {
	for _, a := range s.model.Actions {
		if a.Name == name {
			return true
		}
	}
	_, ok := s.sim.Model().Action(name)
	return ok
}

// DecodeRequest parses a simulate request strictly: one JSON object with
// no unknown fields, numbers kept exact. Its errors say what is wrong and
// where.
func DecodeRequest(body []byte) (*sim.Request, error) {
	if req, ok := decodeRequestFast(body); ok {
		return req, nil
	}
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) == 0 {
		return nil, errors.New("empty request body: want a JSON object")
	}
	if trimmed[0] != '{' {
		return nil, fmt.Errorf("invalid request at offset %d: want a JSON object", len(body)-len(trimmed))
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	var req sim.Request
	if err := dec.Decode(&req); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return nil, fmt.Errorf("invalid JSON at offset %d: %v", at(se.Offset), se)
		case errors.Is(err, io.ErrUnexpectedEOF):
			return nil, fmt.Errorf("invalid JSON at offset %d: unexpected end of input", len(body))
		case errors.As(err, &te):
			field := te.Field
			if field == "" {
				field = "(top level)"
			}
			return nil, fmt.Errorf("invalid request at offset %d: %s: want %s, not a JSON %s", at(te.Offset), field, jsonKind(te.Type.Kind().String()), te.Value)
		default:
			msg := strings.TrimPrefix(err.Error(), "json: ")
			if strings.HasPrefix(msg, "unknown field") {
				msg += ` (a request has "actions", "init", "include_states" and "resync"; an action has "name" and "params")`
			}
			return nil, fmt.Errorf("invalid request: %s", msg)
		}
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("invalid JSON at offset %d: data after the request object", dec.InputOffset())
	}
	return &req, nil
}

// at turns encoding/json's offsets (bytes read up to the error) into the
// offset of the offending byte.
func at(read int64) int64 { return max(read-1, 0) }

func jsonKind(goKind string) string {
	switch goKind {
	case "slice":
		return "an array"
	case "map", "struct":
		return "an object"
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	}
	return goKind
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		status = http.StatusInternalServerError
		buf.Reset()
		b, _ := json.Marshal(map[string]string{"error": "encoding the answer: " + err.Error()})
		buf.Write(append(b, '\n'))
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

// statusWriter remembers the status written, for the log and for panics.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

// ListenLoopback listens on addr (HOST:PORT), which must resolve to
// loopback addresses only: the sidecar is not a network service.
func ListenLoopback(addr string) (net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("address %q: %v", addr, err)
	}
	if host == "" {
		return nil, fmt.Errorf("address %q names every interface: the sidecar listens on loopback only (e.g. 127.0.0.1:%s)", addr, port)
	}
	var ips []net.IP
	if ip := net.ParseIP(host); ip != nil {
		ips = []net.IP{ip}
	} else {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		addrs, err := net.DefaultResolver.LookupIPAddr(ctx, host)
		if err != nil {
			return nil, fmt.Errorf("address %q: %v", addr, err)
		}
		for _, a := range addrs {
			ips = append(ips, a.IP)
		}
	}
	if len(ips) == 0 {
		return nil, fmt.Errorf("address %q: %s resolves to no address", addr, host)
	}
	pick := ips[0]
	for _, ip := range ips {
		if !ip.IsLoopback() {
			return nil, fmt.Errorf("address %q: %s is not a loopback address: the sidecar listens on loopback only", addr, ip)
		}
		if pick.To4() == nil && ip.To4() != nil {
			pick = ip // prefer 127.0.0.1 to ::1, as clients do
		}
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(pick.String(), port))
	if err != nil {
		return nil, err
	}
	return ln, nil
}
