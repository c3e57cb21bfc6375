package ddmin

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// containsAll is a predicate: the set reproduces when it holds every needed
// item.
func containsAll(needed ...int) func([]int) bool {
	return func(s []int) bool {
		for _, n := range needed {
			if !slices.Contains(s, n) {
				return false
			}
		}
		return true
	}
}

func TestDDMin(t *testing.T) {
	items := func(n int) []int {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	for _, tc := range []struct {
		name string
		n    int
		pred func([]int) bool
		want []int
	}{
		{"single needed item", 16, containsAll(5), []int{5}},
		{"first item", 9, containsAll(0), []int{0}},
		{"last item", 9, containsAll(8), []int{8}},
		{"two items apart (interference)", 32, containsAll(3, 29), []int{3, 29}},
		{"three items", 100, containsAll(10, 11, 77), []int{10, 11, 77}},
		{"all needed", 5, containsAll(0, 1, 2, 3, 4), []int{0, 1, 2, 3, 4}},
		{"one of two suffices", 20, func(s []int) bool { return slices.Contains(s, 4) || slices.Contains(s, 15) }, []int{4}},
		{"at least three items", 12, func(s []int) bool { return len(s) >= 3 }, nil},
		{"single item input", 1, containsAll(0), []int{0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tests := 0
			got, err := Minimize(context.Background(), items(tc.n), func(_ context.Context, cands [][]int) (int, error) {
				for i, c := range cands {
					tests++
					if tc.pred(c) {
						return i, nil
					}
				}
				return -1, nil
			})
			require.NoError(t, err)
			require.True(t, tc.pred(got), "the result reproduces")
			if tc.want != nil {
				require.Equal(t, tc.want, got)
			} else {
				require.Len(t, got, 3)
			}
			// 1-minimal: no single item can be removed.
			for i := range got {
				rest := slices.Delete(slices.Clone(got), i, i+1)
				require.False(t, tc.pred(rest) && len(got) > 1, "removing %d still reproduces", got[i])
			}
			require.LessOrEqual(t, tests, 4*tc.n+4)
		})
	}
}

func TestDDMinStopsOnContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	_, err := Minimize(ctx, []int{0, 1, 2, 3, 4, 5, 6, 7}, func(context.Context, [][]int) (int, error) {
		cancel()
		return -1, nil
	})
	require.ErrorIs(t, err, context.Canceled)
}
