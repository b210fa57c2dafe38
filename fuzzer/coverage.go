package fuzzer

// Coverage is the set of items seen so far for one measure. It is an
// open-addressing hash set of the 64-bit items themselves (items are
// already hashes): 8 bytes a slot, at most 3/4 full, so a campaign's
// coverage costs 11-21 bytes an item in RAM, a third of a Go map's.
type Coverage struct {
	slots   []uint64 // 0 marks an empty slot; item 0 is kept in hasZero
	n       int
	hasZero bool
}

// NewCoverage returns an empty set.
func NewCoverage() *Coverage { return &Coverage{slots: make([]uint64, 1024)} }

// Has reports whether x is in the set.
func (c *Coverage) Has(x uint64) bool {
	if x == 0 {
		return c.hasZero
	}
	mask := uint64(len(c.slots) - 1)
	for i := mix(x) & mask; ; i = (i + 1) & mask {
		switch c.slots[i] {
		case x:
			return true
		case 0:
			return false
		}
	}
}

// New returns the items of xs not in the set, without recording them.
// Duplicates within xs are reported once.
func (c *Coverage) New(xs []uint64) []uint64 {
	var out []uint64
	for _, x := range xs {
		if c.Has(x) || slicesContains(out, x) {
			continue
		}
		out = append(out, x)
	}
	return out
}

func slicesContains(xs []uint64, x uint64) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// Add records items.
func (c *Coverage) Add(xs []uint64) {
	for _, x := range xs {
		c.add(x)
	}
}

func (c *Coverage) add(x uint64) {
	if x == 0 {
		if !c.hasZero {
			c.hasZero = true
			c.n++
		}
		return
	}
	if (c.n+1)*4 > len(c.slots)*3 {
		c.grow()
	}
	mask := uint64(len(c.slots) - 1)
	for i := mix(x) & mask; ; i = (i + 1) & mask {
		switch c.slots[i] {
		case x:
			return
		case 0:
			c.slots[i] = x
			c.n++
			return
		}
	}
}

func (c *Coverage) grow() {
	old := c.slots
	c.slots = make([]uint64, 2*len(old))
	mask := uint64(len(c.slots) - 1)
	for _, x := range old {
		if x == 0 {
			continue
		}
		i := mix(x) & mask
		for c.slots[i] != 0 {
			i = (i + 1) & mask
		}
		c.slots[i] = x
	}
}

// mix spreads an item over the slots: items are hashes, but some
// measures' items (line numbers, small ids) are not.
func mix(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	return x
}

// Len is the number of items seen.
func (c *Coverage) Len() int { return c.n }

// Bytes is the memory the set holds.
func (c *Coverage) Bytes() int { return 8 * len(c.slots) }

// Hits counts how many executions reached each item of one measure (the
// rare energy schedule's measure of how common a state is). Same layout
// as Coverage, with a 32-bit count beside each item.
type Hits struct {
	keys   []uint64
	counts []uint32
	n      int
	zero   uint32
}

// NewHits returns an empty count table.
func NewHits() *Hits { return &Hits{keys: make([]uint64, 1024), counts: make([]uint32, 1024)} }

// Get returns how many times x was counted.
func (h *Hits) Get(x uint64) uint32 {
	if x == 0 {
		return h.zero
	}
	mask := uint64(len(h.keys) - 1)
	for i := mix(x) & mask; ; i = (i + 1) & mask {
		switch h.keys[i] {
		case x:
			return h.counts[i]
		case 0:
			return 0
		}
	}
}

// Inc counts x once more (saturating).
func (h *Hits) Inc(x uint64) { h.Add(x, 1) }

// Add counts x n times more (saturating).
func (h *Hits) Add(x uint64, n uint32) {
	if n == 0 {
		return
	}
	if x == 0 {
		h.zero = satAdd(h.zero, n)
		return
	}
	if (h.n+1)*4 > len(h.keys)*3 {
		h.grow()
	}
	mask := uint64(len(h.keys) - 1)
	for i := mix(x) & mask; ; i = (i + 1) & mask {
		switch h.keys[i] {
		case x:
			h.counts[i] = satAdd(h.counts[i], n)
			return
		case 0:
			h.keys[i], h.counts[i] = x, n
			h.n++
			return
		}
	}
}

func satAdd(a, b uint32) uint32 {
	if a > ^uint32(0)-b {
		return ^uint32(0)
	}
	return a + b
}

func (h *Hits) grow() {
	keys, counts := h.keys, h.counts
	h.keys, h.counts = make([]uint64, 2*len(keys)), make([]uint32, 2*len(keys))
	mask := uint64(len(h.keys) - 1)
	for k, x := range keys {
		if x == 0 {
			continue
		}
		i := mix(x) & mask
		for h.keys[i] != 0 {
			i = (i + 1) & mask
		}
		h.keys[i], h.counts[i] = x, counts[k]
	}
}
