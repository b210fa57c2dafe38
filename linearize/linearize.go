// Package linearize checks client histories of a key-value store (puts,
// gets and increments, each with its invocation and response times) for
// linearizability with porcupine. The process adapter and the in-process etcd raft adapter
// use it as their client oracle.
package linearize

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/modelfuzz/modelfuzz/schedule"
)

// Op is one client operation of a history, with its invocation and
// response times in the adapter's clock (nanoseconds since the execution
// started, or an event count).
type Op struct {
	Process int    `json:"process"`
	Value   int    `json:"value"` // the request step's value
	Step    int    `json:"step"`  // the request step
	Put     bool   `json:"put"`   // a put of Arg, else a get
	Key     string `json:"key"`
	Arg     string `json:"arg,omitempty"` // put: the value written
	// Incr, when not 0, adds Incr to the key's value read as an integer
	// ("" is 0): after the put of Arg when Put is set (a transaction of
	// both), else alone; Out is then the value it made.
	Incr int64  `json:"incr,omitempty"`
	Out  string `json:"out,omitempty"` // get, increment: the value read or made ("" for none)
	Call int64  `json:"call"`
	// Return is the response time; Pending operations (a write whose
	// outcome is unknown: no answer, or an error) have math.MaxInt64: they
	// may take effect at any time after their call, or never.
	Return  int64 `json:"return"`
	Pending bool  `json:"pending,omitempty"`
	RetStep int   `json:"ret_step"` // the step in which the answer arrived
}

// History is the client history of an execution, in invocation order.
// Reads whose outcome is unknown are left out (they constrain nothing).
type History []Op

// checkTimeout bounds porcupine's search; an undecided history is not
// reported.
const checkTimeout = 5 * time.Second

// kvModel is a key-value store of put and get, partitioned by key: each
// partition is a register whose state is the value ("" when none).
var kvModel = porcupine.Model{
	Partition: func(h []porcupine.Operation) [][]porcupine.Operation {
		byKey := map[string][]porcupine.Operation{}
		var keys []string
		for _, o := range h {
			k := o.Input.(Op).Key
			if _, ok := byKey[k]; !ok {
				keys = append(keys, k)
			}
			byKey[k] = append(byKey[k], o)
		}
		sort.Strings(keys)
		out := make([][]porcupine.Operation, len(keys))
		for i, k := range keys {
			out[i] = byKey[k]
		}
		return out
	},
	Init: func() any { return "" },
	Step: func(state, input, output any) (bool, any) {
		in := input.(Op)
		s := state.(string)
		if in.Put {
			s = in.Arg
		}
		if in.Incr != 0 {
			n, err := strconv.ParseInt(s, 10, 64)
			if s != "" && err != nil {
				// Redis refuses to increment what is not an integer.
				return in.Pending || output.(string) == "", state
			}
			s = strconv.FormatInt(n+in.Incr, 10)
			return in.Pending || output.(string) == s, s
		}
		if in.Put {
			return true, s
		}
		return output.(string) == s, state
	},
	DescribeOperation: func(input, output any) string {
		in := input.(Op)
		var s string
		switch {
		case in.Put && in.Incr != 0:
			s = fmt.Sprintf("put(%s, %q)+incr(%d) -> %q", in.Key, in.Arg, in.Incr, output.(string))
		case in.Incr != 0:
			s = fmt.Sprintf("incr(%s, %d) -> %q", in.Key, in.Incr, output.(string))
		case in.Put:
			s = fmt.Sprintf("put(%s, %q)", in.Key, in.Arg)
		default:
			return fmt.Sprintf("get(%s) -> %q", in.Key, output.(string))
		}
		if in.Pending {
			s += " (no answer)"
		}
		return s
	},
	DescribeState: func(state any) string { return strconv.Quote(state.(string)) },
}

// operations turns a history into porcupine's form. Clients (the rows of
// the visualization) are assigned so that each one's operations do not
// overlap.
func operations(h History) []porcupine.Operation {
	ops := make([]porcupine.Operation, len(h))
	var busyUntil []int64 // by client
	for i, o := range h {
		c := -1
		for k, until := range busyUntil {
			if until < o.Call {
				c = k
				break
			}
		}
		if c < 0 {
			c = len(busyUntil)
			busyUntil = append(busyUntil, 0)
		}
		busyUntil[c] = o.Return
		ops[i] = porcupine.Operation{ClientId: c, Input: o, Call: o.Call, Output: o.Out, Return: o.Return}
	}
	return ops
}

// Linearizable checks a history against the key-value model. It returns
// porcupine's verdict (Ok, Illegal or Unknown when the check timed out)
// and the key of the first partition that is not linearizable.
func Linearizable(h History) (porcupine.CheckResult, string) {
	byKey := map[string]History{}
	for _, o := range h {
		byKey[o.Key] = append(byKey[o.Key], o)
	}
	result := porcupine.Ok
	for _, k := range slices.Sorted(maps.Keys(byKey)) {
		switch porcupine.CheckOperationsTimeout(kvModel, operations(byKey[k]), checkTimeout) {
		case porcupine.Illegal:
			return porcupine.Illegal, k
		case porcupine.Unknown:
			result = porcupine.Unknown
		}
	}
	return result, ""
}

// Check is the execution's linearizability oracle. The
// failure's step is the latest step in which an operation on the failing
// key was issued or answered.
func Check(h History, steps int) *schedule.Failure {
	if len(h) == 0 {
		return nil
	}
	res, key := Linearizable(h)
	if res != porcupine.Illegal {
		return nil
	}
	step, n := 0, 0
	for _, o := range h {
		if o.Key == key {
			n++
			step = max(step, o.Step, o.RetStep)
		}
	}
	if steps > 0 {
		step = min(step, steps-1)
	}
	return &schedule.Failure{Kind: schedule.FailureLinearizability, Signature: "linearizability: kv", Step: step,
		Message: fmt.Sprintf("the client history of key %s (%d operations) is not linearizable", key, n)}
}

const historyMarker = "client history (JSON):\n"

// Detail renders a history for a failure's detail, one operation
// per line; HistoryFromDetail reads it back.
func Detail(h History) string {
	var b strings.Builder
	b.WriteString(historyMarker)
	b.WriteString("[")
	for i, o := range h {
		if i > 0 {
			b.WriteByte(',')
		}
		line, _ := json.Marshal(o)
		b.WriteString("\n  ")
		b.Write(line)
	}
	b.WriteString("\n]\n")
	return b.String()
}

// HistoryFromDetail reads the client history from the detail of a
// linearizability failure (to visualize a stored bug).
func HistoryFromDetail(detail string) (History, error) {
	_, rest, ok := strings.Cut(detail, historyMarker)
	if !ok {
		return nil, errors.New("the failure's detail has no client history")
	}
	var h History
	if err := json.NewDecoder(strings.NewReader(rest)).Decode(&h); err != nil {
		return nil, fmt.Errorf("client history: %w", err)
	}
	return h, nil
}

// WriteVisualization writes porcupine's interactive HTML view of a history
// (its operations per key, and the longest linearizable prefixes) to path.
func WriteVisualization(h History, path string) error {
	_, info := porcupine.CheckOperationsVerbose(kvModel, operations(h), checkTimeout)
	if err := porcupine.VisualizePath(kvModel, info, path); err != nil {
		return fmt.Errorf("visualization: %w", err)
	}
	return nil
}
