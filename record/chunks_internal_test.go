package record

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// list returns c's elements.
func list(c *chunks[int]) []int {
	out := make([]int, c.size())
	for i := range out {
		out[i] = *c.at(i)
	}
	return out
}

// seq returns the integers from a up to b (excluded).
func seq(a, b int) []int {
	var out []int
	for i := a; i < b; i++ {
		out = append(out, i)
	}
	return out
}

func TestChunksForkAndReuse(t *testing.T) {
	var c chunks[int]
	c.reserve(5) // a short first chunk, copied into a whole one when full
	require.Equal(t, 5, cap(c.tail))
	for i := range 2*chunkLen + 3 {
		*c.push() = i
	}
	require.Equal(t, seq(0, 2*chunkLen+3), list(&c))
	require.Len(t, c.full, 2)

	// A fork and its origin go on apart, sharing what they had.
	f := c.fork()
	g := c.fork()
	for i := range chunkLen {
		*c.push() = 1000 + i
		*f.push() = 2000 + i
	}
	want := seq(0, 2*chunkLen+3)
	require.Equal(t, append(append([]int(nil), want...), seq(1000, 1000+chunkLen)...), list(&c))
	require.Equal(t, append(append([]int(nil), want...), seq(2000, 2000+chunkLen)...), list(&f))
	require.Equal(t, want, list(&g))
	require.Same(t, &c.full[0][0], &f.full[0][0], "full chunks are shared")

	// A discarded list's memory serves the next one, from empty.
	r := c.reuse()
	require.Zero(t, r.size())
	r.reserve(5)
	require.Equal(t, chunkLen, cap(r.tail), "a whole chunk from the free list")
	for i := range 3 * chunkLen {
		*r.push() = -i
	}
	require.Equal(t, 3*chunkLen, r.size())
	require.Equal(t, -(3*chunkLen - 1), *r.at(3*chunkLen - 1))
	require.Len(t, r.free, 1, "c's four chunks, three taken")
}
