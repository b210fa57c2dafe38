package etcd

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// Op is one client operation of an execution's history.
type Op struct {
	Process int    `json:"process"`
	Step    int    `json:"step"`
	Value   int    `json:"value"` // the step's value
	Kind    string `json:"kind"`  // opPut, opGet, opSerializableGet, opDelete, opCAS, opGrant, opRevoke
	Key     string `json:"key,omitempty"`
	Arg     string `json:"arg,omitempty"`    // put, cas: the value written
	Expect  string `json:"expect,omitempty"` // cas: the value compared ("": the key is absent)
	Lease   int64  `json:"lease,omitempty"`  // put: the lease attached; revoke: the lease revoked

	// The outcome. Pending: no answer, or an error (the operation may
	// have taken effect, or not).
	Pending   bool   `json:"pending,omitempty"`
	Err       string `json:"err,omitempty"`
	Found     bool   `json:"found,omitempty"`
	Out       string `json:"out,omitempty"` // get: the value read
	Mod       int64  `json:"mod,omitempty"` // get: its mod revision
	Rev       int64  `json:"rev,omitempty"` // the answer's header revision
	Deleted   int64  `json:"deleted,omitempty"`
	Succeeded bool   `json:"succeeded,omitempty"`
	LeaseID   int64  `json:"lease_id,omitempty"` // grant: the lease granted
	Call      int64  `json:"call"`               // nanoseconds since the execution began
	Return    int64  `json:"return"`
}

const (
	opPut             = "put"
	opGet             = "get"
	opSerializableGet = "sget"
	opDelete          = "delete"
	opCAS             = "cas"
	opGrant           = "grant"
	opRevoke          = "revoke"
)

// String renders the operation for a failure's message.
func (o Op) String() string {
	var in string
	switch o.Kind {
	case opPut:
		in = fmt.Sprintf("put(%s, %s", o.Key, o.Arg)
		if o.Lease != 0 {
			in += fmt.Sprintf(", lease %d", o.Lease)
		}
		in += ")"
	case opGet, opSerializableGet, opDelete:
		in = fmt.Sprintf("%s(%s)", o.Kind, o.Key)
	case opCAS:
		in = fmt.Sprintf("cas(%s, %q -> %s)", o.Key, o.Expect, o.Arg)
	case opGrant:
		in = "grant()"
	case opRevoke:
		in = fmt.Sprintf("revoke(%d)", o.Lease)
	}
	switch {
	case o.Pending:
		return in + " -> ?"
	case o.Kind == opGet || o.Kind == opSerializableGet:
		if !o.Found {
			return fmt.Sprintf("%s -> none @%d", in, o.Rev)
		}
		return fmt.Sprintf("%s -> %s (mod %d) @%d", in, o.Out, o.Mod, o.Rev)
	case o.Kind == opDelete:
		return fmt.Sprintf("%s -> deleted %d @%d", in, o.Deleted, o.Rev)
	case o.Kind == opCAS:
		return fmt.Sprintf("%s -> %v @%d", in, o.Succeeded, o.Rev)
	case o.Kind == opGrant:
		return fmt.Sprintf("%s -> %d @%d", in, o.LeaseID, o.Rev)
	}
	return fmt.Sprintf("%s -> @%d", in, o.Rev)
}

// store is the state of etcd's key space as its clients see it: the
// store's revision, which every write that changes something raises by
// one, each key's value and mod revision, and the leases with their keys.
type store struct {
	rev    int64
	kv     map[string]kvState
	leases map[int64]bool
}

type kvState struct {
	val   string
	mod   int64
	lease int64
}

func (s *store) clone() *store {
	return &store{rev: s.rev, kv: maps.Clone(s.kv), leases: maps.Clone(s.leases)}
}

func (s *store) key() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d|", s.rev)
	for _, k := range slices.Sorted(maps.Keys(s.kv)) {
		v := s.kv[k]
		fmt.Fprintf(&b, "%s=%s@%d/%d;", k, v.val, v.mod, v.lease)
	}
	for _, l := range slices.Sorted(maps.Keys(s.leases)) {
		fmt.Fprintf(&b, "L%d;", l)
	}
	return b.String()
}

// step applies o to s: whether the answer o got is one etcd could give
// in state s, and the state after it.
func (s *store) step(o Op) (bool, *store) {
	n := s.clone()
	cur, exists := s.kv[o.Key]
	switch o.Kind {
	case opPut:
		if o.Lease != 0 && !s.leases[o.Lease] && !o.Pending {
			return false, s // etcd refuses a put to a lease it does not have
		}
		n.rev++
		n.kv[o.Key] = kvState{val: o.Arg, mod: n.rev, lease: o.Lease}
	case opGet:
		if o.Pending {
			return true, s
		}
		ok := o.Rev == s.rev && o.Found == exists && (!exists || o.Out == cur.val && o.Mod == cur.mod)
		return ok, s
	case opDelete:
		if exists {
			n.rev++
			delete(n.kv, o.Key)
		}
		if !o.Pending && o.Deleted != int64(len(s.kv)-len(n.kv)) {
			return false, s
		}
	case opCAS:
		cond := o.Expect == "" && !exists || exists && cur.val == o.Expect
		if !o.Pending && o.Succeeded != cond {
			return false, s
		}
		if cond {
			n.rev++
			n.kv[o.Key] = kvState{val: o.Arg, mod: n.rev}
		}
	case opGrant:
		if o.Pending {
			return true, s
		}
		if s.leases[o.LeaseID] {
			return false, s
		}
		n.leases[o.LeaseID] = true
	case opRevoke:
		if !s.leases[o.Lease] {
			return o.Pending, s
		}
		delete(n.leases, o.Lease)
		gone := false
		for k, v := range s.kv {
			if v.lease == o.Lease {
				delete(n.kv, k)
				gone = true
			}
		}
		if gone {
			n.rev++
		}
	}
	return o.Pending || o.Rev == n.rev, n
}

var storeModel = porcupine.Model{
	Init: func() any { return &store{rev: 1, kv: map[string]kvState{}, leases: map[int64]bool{}} },
	Step: func(state, input, _ any) (bool, any) {
		return state.(*store).step(input.(Op))
	},
	Equal: func(a, b any) bool { return a.(*store).key() == b.(*store).key() },
	DescribeOperation: func(input, _ any) string {
		return input.(Op).String()
	},
}

// linearizeTimeout bounds porcupine's search; an undecided history is
// not reported as a failure but counted (checkUnknown).
const linearizeTimeout = 10 * time.Second

// checkResult is what checkHistory concluded of a history.
type checkResult int

const (
	checkNone     checkResult = iota // nothing to check: no operation with an answer that counts
	checkOK                          // linearizable
	checkViolated                    // not linearizable
	checkUnknown                     // porcupine ran out of time: undecided
)

// checkHistory checks the history against etcd's key space, revisions
// included. Serializable reads may be stale by design and are left out,
// as are reads without an answer.
func checkHistory(h []Op, steps int) (*schedule.Failure, checkResult) {
	ops := operations(h)
	if len(ops) == 0 {
		return nil, checkNone
	}
	res, _ := porcupine.CheckOperationsVerbose(storeModel, ops, linearizeTimeout)
	switch res {
	case porcupine.Ok:
		return nil, checkOK
	case porcupine.Unknown:
		return nil, checkUnknown
	}
	var b strings.Builder
	for _, o := range h {
		fmt.Fprintf(&b, "  n%d step %d: %s\n", o.Process+1, o.Step, o)
	}
	hist, _ := json.Marshal(h)
	return &schedule.Failure{
		Kind:      schedule.FailureLinearizability,
		Signature: "linearizability: etcd kv",
		Message:   "the client history is not linearizable for etcd's key space (values and revisions)",
		Step:      steps,
		Detail:    "history:\n" + b.String() + historyJSONMarker + string(hist) + "\n",
	}, checkViolated
}

// operations are the operations of h that porcupine checks: serializable
// reads may be stale by design and are left out, as are reads without an
// answer; an operation without an answer may take effect at any time
// after its call.
func operations(h []Op) []porcupine.Operation {
	var ops []porcupine.Operation
	for i, o := range h {
		if o.Kind == opSerializableGet || o.Pending && o.Kind == opGet {
			continue
		}
		ret := o.Return
		if o.Pending {
			ret = math.MaxInt64
		}
		ops = append(ops, porcupine.Operation{ClientId: i, Input: o, Call: o.Call, Output: nil, Return: ret})
	}
	return ops
}

// historyJSONMarker starts the line of a linearizability failure's detail
// that holds the client history as JSON.
const historyJSONMarker = "history JSON: "

// VisualizeHistory writes porcupine's picture of the client history in a
// linearizability failure's detail, checked against etcd's key space, to
// path (an HTML page).
func (f *Factory) VisualizeHistory(detail, path string) error {
	_, rest, ok := strings.Cut(detail, historyJSONMarker)
	if !ok {
		return errors.New("the failure's detail has no client history")
	}
	line, _, _ := strings.Cut(rest, "\n")
	var h []Op
	if err := json.Unmarshal([]byte(line), &h); err != nil {
		return fmt.Errorf("the failure's client history: %v", err)
	}
	_, info := porcupine.CheckOperationsVerbose(storeModel, operations(h), linearizeTimeout)
	if err := porcupine.VisualizePath(storeModel, info, path); err != nil {
		return fmt.Errorf("visualization: %w", err)
	}
	return nil
}
