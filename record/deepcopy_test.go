package record_test

import (
	"testing"

	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type copied struct {
	N    int
	Xs   []int
	M    map[string]int
	good bool
}

func (c *copied) DeepCopy() any {
	d := *c
	if c.good {
		d.Xs = append([]int(nil), c.Xs...)
		d.M = map[string]int{}
		for k, v := range c.M {
			d.M[k] = v
		}
	}
	return &d
}

type wrongType struct{}

func (wrongType) DeepCopy() any { return 0 }

func TestCheckDeepCopy(t *testing.T) {
	require.NoError(t, record.CheckDeepCopy(&copied{N: 1, Xs: []int{1}, M: map[string]int{"a": 1}, good: true}))
	err := record.CheckDeepCopy(&copied{N: 1, Xs: []int{1}})
	require.Error(t, err)
	assert.Equal(t, "record: *record_test.copied.DeepCopy shares memory with the value at .Xs (slice)", err.Error())
	err = record.CheckDeepCopy(&copied{M: map[string]int{}})
	require.Error(t, err)
	assert.Equal(t, "record: *record_test.copied.DeepCopy shares memory with the value at .M (map)", err.Error())
	err = record.CheckDeepCopy(wrongType{})
	require.Error(t, err)
	assert.Equal(t, "record: record_test.wrongType.DeepCopy returned a int", err.Error())
}

// TestStorageUsesDeepCopy: Put stores what DeepCopy returns.
func TestStorageUsesDeepCopy(t *testing.T) {
	s := record.Storage{}
	v := &copied{Xs: []int{1, 2}, good: true}
	s.Put("k", v)
	v.Xs[0] = 9
	got, ok := s.Get("k")
	require.True(t, ok)
	assert.Equal(t, []int{1, 2}, got.(*copied).Xs)
}
