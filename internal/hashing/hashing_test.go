package hashing_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/demi-project/demi/internal/hashing"
)

func TestMixIsOrderSensitive(t *testing.T) {
	a := hashing.Mix(hashing.Mix(hashing.Seed, 1), 2)
	b := hashing.Mix(hashing.Mix(hashing.Seed, 2), 1)
	assert.NotEqual(t, a, b)
	assert.Equal(t, a, hashing.Mix(hashing.Mix(hashing.Seed, 1), 2), "deterministic")
}

func TestStringSeparatesLengthsAndBytes(t *testing.T) {
	seen := map[uint64]string{}
	for _, s := range []string{"", "a", "b", "ab", "ba", "a\x00", "abcdefgh", "abcdefghi", "abcdefgi"} {
		h := hashing.String(hashing.Seed, s)
		prev, dup := seen[h]
		assert.False(t, dup, "%q and %q collide", s, prev)
		seen[h] = s
	}
	assert.Equal(t, hashing.String(7, "xyz"), hashing.Bytes(7, []byte("xyz")))
}

func TestFinishSpreadsOneBit(t *testing.T) {
	// Flipping one input bit flips about half of the output bits.
	for bit := 0; bit < 64; bit++ {
		d := hashing.Finish(1<<bit) ^ hashing.Finish(0)
		n := 0
		for ; d != 0; d &= d - 1 {
			n++
		}
		assert.Greater(t, n, 12, "bit %d", bit)
	}
}
