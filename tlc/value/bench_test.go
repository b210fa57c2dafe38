package value

import (
	"fmt"
	"testing"
)

// raftState builds a state shaped like a Raft model's: functions from
// servers to terms, roles, vote sets and logs, and a set of message records.
func raftState(b testing.TB, servers int) []Value {
	srv := make([]Value, servers)
	for i := range srv {
		srv[i] = NewModelValue(fmt.Sprintf("s%d", i+1))
	}
	over := func(f func(i int) Value) Value {
		vals := make([]Value, servers)
		for i := range vals {
			vals[i] = f(i)
		}
		g, err := NewFunc(srv, vals)
		if err != nil {
			b.Fatal(err)
		}
		return g
	}
	entry, _ := NewRecordShape("term", "value")
	msg, _ := NewRecordShape("mtype", "mterm", "msource", "mdest")
	mkEntry := func(t int64) Value { e, _ := entry.Make([]Value{IntOf(t), Str("v")}); return e }
	var msgs []Value
	for i := range servers {
		for j := range servers {
			m, _ := msg.Make([]Value{Str("RequestVote"), IntOf(int64(i + 1)), srv[i], srv[j]})
			msgs = append(msgs, m)
		}
	}
	return []Value{
		over(func(i int) Value { return IntOf(int64(i + 2)) }),
		over(func(i int) Value { return Str([]string{"Follower", "Candidate", "Leader"}[i%3]) }),
		over(func(i int) Value { return NewSet(srv[:i%servers+1]...) }),
		over(func(i int) Value { return Tuple(mkEntry(1), mkEntry(int64(i+1))) }),
		over(func(i int) Value { return IntOf(int64(i)) }),
		NewSet(msgs...),
	}
}

// clearCaches forgets cached fingerprints, to measure hashing from scratch.
func clearCaches(v Value) {
	switch x := v.(type) {
	case *Set:
		x.fp.Store(0)
		for _, e := range x.elems {
			clearCaches(e)
		}
	case *Func:
		x.fp.Store(0)
		for _, e := range x.vals {
			clearCaches(e)
		}
	}
}

func BenchmarkFingerprintStateCold(b *testing.B) {
	state := raftState(b, 3)
	b.ReportAllocs()
	for b.Loop() {
		for _, v := range state {
			clearCaches(v)
		}
		_ = FingerprintState(state)
	}
}

func BenchmarkFingerprintStateWarm(b *testing.B) {
	state := raftState(b, 3)
	FingerprintState(state)
	b.ReportAllocs()
	for b.Loop() {
		_ = FingerprintState(state)
	}
}

// A successor state: one entry of one function changes (EXCEPT), the rest
// is shared with the parent and already fingerprinted.
func BenchmarkFingerprintSuccessor(b *testing.B) {
	state := raftState(b, 3)
	FingerprintState(state)
	key := state[0].(*Func).Key(1)
	next := make([]Value, len(state))
	copy(next, state)
	b.ReportAllocs()
	i := int64(0)
	for b.Loop() {
		i++
		f, err := Update(state[0], []Value{key}, IntOf(i%1000))
		if err != nil {
			b.Fatal(err)
		}
		next[0] = f
		_ = FingerprintState(next)
	}
}

func BenchmarkSetMember(b *testing.B) {
	msgs := raftState(b, 5)[5].(*Set)
	probe := msgs.elems[len(msgs.elems)/3]
	b.ReportAllocs()
	for b.Loop() {
		if in, err := Member(probe, msgs); err != nil || !in {
			b.Fatal("not a member")
		}
	}
}

func BenchmarkSetMemberInts(b *testing.B) {
	s := NewSet(ints(1, 3, 5, 7, 9, 11, 13, 15, 17, 19)...)
	b.ReportAllocs()
	for b.Loop() {
		if in, _ := Member(IntOf(13), s); !in {
			b.Fatal("not a member")
		}
	}
}

// msgs \cup {m}: adding a message to a set of messages.
func BenchmarkSetUnionAdd(b *testing.B) {
	msgs := raftState(b, 5)[5].(*Set)
	shape, _ := NewRecordShape("mtype", "mterm", "msource", "mdest")
	m, _ := shape.Make([]Value{Str("AppendEntries"), IntOf(3), mvA, mvB})
	single := NewSet(m)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Union(msgs, single); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEqualStates(b *testing.B) {
	s1, s2 := raftState(b, 3), raftState(b, 3)
	b.ReportAllocs()
	for b.Loop() {
		for i := range s1 {
			if eq, err := Equal(s1[i], s2[i]); err != nil || !eq {
				b.Fatal("not equal")
			}
		}
	}
}

// Values are shared between the checker's workers: fingerprint caches and
// lookups must be race-free (run with -race).
func TestConcurrentUse(t *testing.T) {
	state := raftState(t, 4)
	want := FingerprintState(state)
	for _, v := range state {
		clearCaches(v)
	}
	done := make(chan uint64)
	for range 8 {
		go func() {
			var last uint64
			for range 50 {
				last = FingerprintState(state)
				_, _ = Member(state[5].(*Set).elems[0], state[5])
				_ = Compare(state[3], state[3])
			}
			done <- last
		}()
	}
	for range 8 {
		if got := <-done; got != want {
			t.Fatalf("fingerprint %x, want %x", got, want)
		}
	}
}
