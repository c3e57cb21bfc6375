package record

import (
	"bufio"
	"bytes"
	"io"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vmihailenco/msgpack/v5"
)

// values covers every msgpack code the encoder emits.
func scanValues() []any {
	return []any{
		nil, true, false, 0, 1, -1, -32, -33, 127, 128, 255, 256, 65535, 65536, math.MaxInt32 + 1, int64(math.MinInt64),
		uint64(math.MaxUint64), float32(1.5), 2.25, "", "x", strings.Repeat("s", 31), strings.Repeat("s", 32),
		strings.Repeat("s", 300), strings.Repeat("s", 70000), []byte{}, []byte("bin"), bytes.Repeat([]byte{1}, 300),
		bytes.Repeat([]byte{1}, 70000), make([]int, 15), make([]int, 16), make([]int, 70000),
		map[string]int{"a": 1}, map[int]string{1: "a", 2: "b"}, time.Unix(1, 2).UTC(), time.Unix(1<<40, 0).UTC(),
		[]any{[]any{map[string]any{"deep": []int{1, 2}}}},
	}
}

func TestScanValue(t *testing.T) {
	for _, v := range scanValues() {
		b, err := msgpack.Marshal(v)
		require.NoError(t, err)
		stream := append(bytes.Clone(b), 0xc0) // a second value follows
		r := bufio.NewReader(bytes.NewReader(stream))
		got, err := scanValue(r, nil)
		require.NoError(t, err, "%T", v)
		assert.Equal(t, b, got, "%T reads exactly one value", v)
		next, err := scanValue(r, nil)
		require.NoError(t, err)
		assert.Equal(t, []byte{0xc0}, next)
		_, err = scanValue(r, nil)
		assert.Equal(t, io.EOF, err)
		for _, cut := range []int{1, len(b) / 2, len(b) - 1} {
			if cut <= 0 || cut >= len(b) {
				continue
			}
			_, err := scanValue(bufio.NewReader(bytes.NewReader(b[:cut])), nil)
			assert.ErrorIs(t, err, io.ErrUnexpectedEOF, "%T cut at %d", v, cut)
		}
		// The byte-slice walk agrees with the stream walk.
		c, err := canonical(b)
		require.NoError(t, err, "%T", v)
		assert.Len(t, c, len(b))
	}
}

type nested struct {
	M map[int]map[string]int
	L []map[string]bool
	S string
}

func TestCanonical(t *testing.T) {
	inner := map[string]int{}
	for _, k := range []string{"a", "bb", "c", "dd", "e", "ff", "g", "hh", "i"} {
		inner[k] = len(k)
	}
	v := nested{M: map[int]map[string]int{}, S: "s"}
	for i := 0; i < 10; i++ {
		v.M[i] = inner
		v.L = append(v.L, map[string]bool{"x": true, "y": false, "z": true})
	}
	first, err := msgpack.Marshal(v)
	require.NoError(t, err)
	assert.True(t, hasMap(first))
	want, err := canonical(first)
	require.NoError(t, err)
	for i := 0; i < 30; i++ {
		b, err := msgpack.Marshal(v)
		require.NoError(t, err)
		got, err := canonical(b)
		require.NoError(t, err)
		require.Equal(t, want, got)
	}
	var back nested
	require.NoError(t, msgpack.Unmarshal(want, &back))
	assert.Equal(t, v, back, "the canonical form decodes to the same value")

	plain, err := msgpack.Marshal([]any{1, "two", []int{3}})
	require.NoError(t, err)
	assert.False(t, hasMap(plain))

	_, err = canonical(want[:len(want)-1])
	assert.Error(t, err)
	_, err = canonical(append(bytes.Clone(want), 1))
	assert.ErrorContains(t, err, "trailing")
	_, err = canonical([]byte{0xc1})
	assert.ErrorContains(t, err, "invalid code")
	deep := append(bytes.Repeat([]byte{0x91}, 100), 0xc0)
	_, err = canonical(deep)
	assert.ErrorContains(t, err, "nested deeper")
}
