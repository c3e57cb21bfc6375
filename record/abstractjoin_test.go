package record_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/demi-project/demi/record"
)

func TestAbstractMultiset(t *testing.T) {
	// Order does not matter; a state's multiplicity counts up to the cap.
	assert.Equal(t, "|a+|b", record.AbstractMultiset([]string{"b", "a", "a"}, 2))
	assert.Equal(t, "|a+|b", record.AbstractMultiset([]string{"a", "b", "a", "a", "a"}, 2))
	assert.Equal(t, "|a++|b", record.AbstractMultiset([]string{"a", "b", "a", "a", "a"}, 3))
	assert.Equal(t, "|a|b", record.AbstractMultiset([]string{"a", "b", "a"}, 1))
	assert.Equal(t, "", record.AbstractMultiset(nil, 2))
}

func TestAbstractBelow(t *testing.T) {
	assert.Equal(t, byte('0'), record.AbstractBelow(-3, 2))
	assert.Equal(t, byte('1'), record.AbstractBelow(1, 2))
	assert.Equal(t, byte('2'), record.AbstractBelow(117, 2))
	assert.Equal(t, byte('3'), record.AbstractBelow(uint64(9), uint64(3)))
}
