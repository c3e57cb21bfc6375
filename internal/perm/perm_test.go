package perm

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestOrdersAreLexicographicIdentityFirst(t *testing.T) {
	require.Equal(t, [][]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}, Orders(3))
	require.Equal(t, [][]int{{}}, Orders(0))
	require.Len(t, Orders(5), 120)
}
