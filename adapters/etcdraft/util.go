package etcdraft

import (
	"fmt"
	"strings"

	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"

	"github.com/modelfuzz/modelfuzz/schedule"
)

var msgTypeNames = map[pb.MessageType]string{}

// msgTypeName caches the names of message types (the protobuf enum's String
// goes through reflection). The map is only looked up, never iterated.
func msgTypeName(t pb.MessageType) string {
	if name, ok := msgTypeNames[t]; ok {
		return name
	}
	return t.String()
}

func init() {
	for t := pb.MessageType(0); t < 64; t++ {
		msgTypeNames[t] = t.String()
	}
}

func roleName(r raft.StateType) string {
	switch r {
	case raft.StateLeader:
		return schedule.RoleLeader
	case raft.StateCandidate:
		return schedule.RoleCandidate
	case raft.StatePreCandidate:
		return schedule.RolePreCandidate
	}
	return schedule.RoleFollower
}

// cloneStorage copies a storage: the RawNode's view of the disk after a
// restart with send-before-persist.
func cloneStorage(src *raft.MemoryStorage) *raft.MemoryStorage {
	dst := raft.NewMemoryStorage()
	snap, _ := src.Snapshot()
	_ = dst.ApplySnapshot(snap)
	first, _ := src.FirstIndex()
	last, _ := src.LastIndex()
	if last >= first {
		ents, _ := src.Entries(first, last+1, 1<<62)
		_ = dst.Append(ents)
	}
	if hs, _, _ := src.InitialState(); hs != nil {
		_ = dst.SetHardState(hs)
	}
	return dst
}

// kvSet sets k to v in the sorted pairs.
func kvSet(kv []kvPair, k, v string) []kvPair {
	for i := range kv {
		if kv[i].key == k {
			kv[i].val = v
			return kv
		}
		if kv[i].key > k {
			kv = append(kv, kvPair{})
			copy(kv[i+1:], kv[i:])
			kv[i] = kvPair{k, v}
			return kv
		}
	}
	return append(kv, kvPair{k, v})
}

// encodeKV is the snapshot data of the state machine: "k=v\n" per key.
func encodeKV(kv []kvPair) []byte {
	var b []byte
	for _, p := range kv {
		b = append(b, p.key...)
		b = append(b, '=')
		b = append(b, p.val...)
		b = append(b, '\n')
	}
	return b
}

func decodeKV(kv []kvPair, data []byte) []kvPair {
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			kv = kvSet(kv, k, v)
		}
	}
	return kv
}

// quietLogger discards the library's logging; its panics and fatal errors
// panic, so that schedule.Guard reports them.
type quietLogger struct{}

func (quietLogger) Debug(...any)          {}
func (quietLogger) Debugf(string, ...any) {}
func (quietLogger) Error(...any)          {}
func (quietLogger) Errorf(string, ...any) {}
func (quietLogger) Info(...any)           {}
func (quietLogger) Infof(string, ...any)  {}

func (quietLogger) Warning(...any)          {}
func (quietLogger) Warningf(string, ...any) {}
func (quietLogger) Fatal(v ...any)          { panic(fmt.Sprint(v...)) }
func (quietLogger) Fatalf(f string, v ...any) {
	panic(fmt.Sprintf(f, v...))
}
func (quietLogger) Panic(v ...any) { panic(fmt.Sprint(v...)) }
func (quietLogger) Panicf(f string, v ...any) {
	panic(fmt.Sprintf(f, v...))
}

// kvGet returns the value of k, "" when none.
func kvGet(kv []kvPair, k string) string {
	for _, p := range kv {
		if p.key == k {
			return p.val
		}
	}
	return ""
}

func cutPrefix(s, prefix string) (string, bool) { return strings.CutPrefix(s, prefix) }

type kvPair struct{ key, val string }
