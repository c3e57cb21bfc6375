package optimal

import (
	"sync"
	"sync/atomic"
)

// table is the state table: a global state key to 1 + the largest budget
// the state was expanded with, shared by the walkers of a parallel search
// and split in shards, each with its lock, so that they rarely wait on
// each other.
type table struct {
	shards [tableShards]struct {
		mu sync.Mutex
		m  map[uint64]uint8
		_  [40]byte // one shard per cache line
	}
	n atomic.Int64
}

const tableShards = 256

func newTable() *table {
	t := &table{}
	for i := range t.shards {
		t.shards[i].m = map[uint64]uint8{}
	}
	return t
}

// claim records that the state key is expanded with left budget, unless
// it was already expanded with at least as much: it reports whether the
// caller is to expand it.
func (t *table) claim(key uint64, left int) bool {
	sh := &t.shards[key>>56]
	sh.mu.Lock()
	old, ok := sh.m[key]
	if ok && int(old) > left {
		sh.mu.Unlock()
		return false
	}
	sh.m[key] = uint8(left + 1)
	sh.mu.Unlock()
	if !ok {
		t.n.Add(1)
	}
	return true
}

// len is the number of states in the table.
func (t *table) len() int { return int(t.n.Load()) }
