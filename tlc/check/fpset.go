package check

import "sync"

// fpSet is the set of the fingerprints of the states found, TLC's FPSet:
// 8 bytes a slot in open-addressing tables (linear probing), kept at most
// three quarters full, so between 11 and 21 bytes a distinct state. The
// set is split into shards by the fingerprint's top byte, each with its
// own lock, so that workers seldom wait for one another; within a shard
// the low bits of the fingerprint choose the slot (fingerprints are
// mixed, so both are uniform).
//
// The slot value 0 means empty; the fingerprint 0 is remembered apart.
//
// A checkpoint writes the shards' tables as they are (see queue.go).
type fpSet struct {
	shards [fpShards]fpShard
}

const fpShards = 256

type fpShard struct {
	mu   sync.Mutex
	tab  []uint64
	n    int
	zero bool
	_    [24]byte // keeps two shards' locks off one cache line
}

func newFPSet() *fpSet {
	s := &fpSet{}
	for i := range s.shards {
		s.shards[i].tab = make([]uint64, 256)
	}
	return s
}

// add reports whether fp was new.
func (s *fpSet) add(fp uint64) bool {
	sh := &s.shards[fp>>56]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if fp == 0 {
		was := sh.zero
		sh.zero = true
		return !was
	}
	if !sh.insert(fp) {
		return false
	}
	sh.n++
	if sh.n*4 > len(sh.tab)*3 {
		sh.grow()
	}
	return true
}

// insert puts fp in its slot and reports whether it was absent.
func (sh *fpShard) insert(fp uint64) bool {
	mask := uint64(len(sh.tab) - 1)
	for i := fp & mask; ; i = (i + 1) & mask {
		switch sh.tab[i] {
		case 0:
			sh.tab[i] = fp
			return true
		case fp:
			return false
		}
	}
}

func (sh *fpShard) grow() {
	old := sh.tab
	sh.tab = make([]uint64, 2*len(old))
	for _, fp := range old {
		if fp != 0 {
			sh.insert(fp)
		}
	}
}

// bytes is the memory the tables take.
func (s *fpSet) bytes() int64 {
	var n int64
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		n += int64(len(sh.tab)) * 8
		sh.mu.Unlock()
	}
	return n
}
