package record

import "slices"

// chunkLen is the length of a chunk of a lazy run's log of entries (4 KB);
// extLen that of its external events (1.4 KB of 176-byte Events: a fork
// copies the last chunk at its first external event, and runs have few).
const (
	chunkLen = 64
	extLen   = 8
)

// chunks is an append-only list kept in chunks of n elements, the
// compact event log of a lazy run (Sim.log, Sim.ext). A fork shares every
// chunk with the run it came from: full chunks are never written again,
// and the last one is clipped, so that the fork's next element goes to a
// copy of that chunk alone. A flat log was copied whole (and doubled) at a
// fork's first event: 17 % of the bytes allocated minimizing a Raft trace.
type chunks[T any] struct {
	n    int   // the chunks' length (0 means chunkLen)
	full [][]T // each of length n
	tail []T   // the last chunk: shorter than n, or full until the next push
	// free is memory to take chunks from (a discarded run's, see reuse).
	free [][]T
}

// withLen returns an empty list of chunks of n elements.
func withLen[T any](n int) chunks[T] { return chunks[T]{n: n} }

// length returns the chunks' length.
func (c *chunks[T]) length() int {
	if c.n == 0 {
		return chunkLen
	}
	return c.n
}

// size returns the number of elements.
func (c *chunks[T]) size() int { return len(c.full)*c.length() + len(c.tail) }

// at returns element i.
func (c *chunks[T]) at(i int) *T {
	n := c.length()
	if k := i / n; k < len(c.full) {
		return &c.full[k][i%n]
	}
	return &c.tail[i-len(c.full)*n]
}

// push appends an element and returns it to be written: it may hold an
// earlier run's element (see reuse), so every field must be set.
func (c *chunks[T]) push() *T {
	if len(c.tail) == cap(c.tail) {
		c.grow(0)
	}
	c.tail = c.tail[:len(c.tail)+1]
	return &c.tail[len(c.tail)-1]
}

// grow makes room in the tail for one more element, or for n when the list
// is empty and n is less than the chunks' length (Reserve: a short run gets
// a short chunk).
func (c *chunks[T]) grow(n int) {
	if len(c.tail) == c.length() {
		c.full = append(c.full, c.tail)
		c.tail = nil
	}
	room := c.length()
	if c.size() == 0 && n > 0 {
		room = min(n, room)
	}
	var t []T
	if k := len(c.free); k > 0 && len(c.tail) == 0 {
		t, c.free = c.free[k-1][:0], c.free[:k-1]
	} else {
		t = make([]T, 0, room)
	}
	// A tail shorter than a chunk and full is shared with a fork (clipped)
	// or was reserved short: copied into a chunk of its own.
	c.tail = append(t, c.tail...)
}

// reserve makes room for n elements in an empty list's first chunk.
func (c *chunks[T]) reserve(n int) {
	if c.size() == 0 && cap(c.tail) < min(n, c.length()) {
		c.grow(n)
	}
}

// fork returns the list for a fork: the same chunks, the last one clipped.
func (c *chunks[T]) fork() chunks[T] {
	return chunks[T]{n: c.n, full: slices.Clip(c.full), tail: slices.Clip(c.tail)}
}

// reuse returns an empty list that takes its chunks from c's memory, for a
// run that replaces a discarded one (nothing else may use c's chunks).
func (c *chunks[T]) reuse() chunks[T] {
	free := append(c.free, c.full...)
	if cap(c.tail) == c.length() {
		free = append(free, c.tail)
	}
	return chunks[T]{n: c.n, free: free}
}
