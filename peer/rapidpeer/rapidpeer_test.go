package rapidpeer_test

import (
	"context"
	"testing"
	"time"

	"github.com/demi-project/demi/examples/tokenring"
	"github.com/demi-project/demi/peer/rapidpeer"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// generous bounds a phase that is expected to end on its own, long before:
// the tests below assert counts and sizes, never times (those are in
// BenchmarkFindAndShrink).
const generous = 2 * time.Minute

var ringBugs = []struct {
	bug         string
	fingerprint string
	// maxDeliveries is the size of rapid's shrunk case with seed 1 (21
	// deliveries shrunk to 5 for restore-token; panic-on-lap's first case
	// is already the 7 deliveries of one lap of a ring of 3).
	maxDeliveries int
}{
	{"restore-token", "two-tokens", 5},
	{"panic-on-lap", "", 7},
}

func ringConfig(bug, fingerprint string) rapidpeer.Config {
	return rapidpeer.Config{Options: record.Options{bug: "true"}, Fingerprint: fingerprint,
		Budget: generous, ShrinkBudget: generous, MaxSteps: 200, ExternalPermille: 100, Checks: 10_000}
}

// TestFindsAndShrinksTokenRingBugs lets rapid search and shrink to the end
// (its shrinker stops when nothing more shrinks, long before the bounds),
// so the outcome is a function of the seed: twice the same.
func TestFindsAndShrinksTokenRingBugs(t *testing.T) {
	for _, c := range ringBugs {
		t.Run(c.bug, func(t *testing.T) {
			sys := tokenring.System()
			res, err := rapidpeer.Run(context.Background(), sys, ringConfig(c.bug, c.fingerprint))
			require.NoError(t, err)
			require.True(t, res.Found, "rapid found no %s violation in %d cases", c.bug, res.Cases)
			require.NotNil(t, res.Trace)
			assert.LessOrEqual(t, res.Deliveries, res.FirstDeliveries, "shrinking never grows the case")
			assert.LessOrEqual(t, res.Deliveries, c.maxDeliveries)
			assert.Equal(t, res.Trace.Header.Deliveries, res.Deliveries)

			r, err := replay.Run(context.Background(), sys, res.Trace)
			require.NoError(t, err)
			assert.True(t, r.Reproduced, "rapid's shrunk case replays exactly")

			again, err := rapidpeer.Run(context.Background(), sys, ringConfig(c.bug, c.fingerprint))
			require.NoError(t, err)
			assert.Equal(t, []int{res.Cases, res.FirstDeliveries, res.Deliveries, res.Externals},
				[]int{again.Cases, again.FirstDeliveries, again.Deliveries, again.Externals}, "same seed, same outcome")
		})
	}
}

func TestNoBugNoFailure(t *testing.T) {
	res, err := rapidpeer.Run(context.Background(), tokenring.System(), rapidpeer.Config{
		Budget: generous, MaxSteps: 50, Checks: 200,
	})
	require.NoError(t, err)
	assert.False(t, res.Found)
	assert.Nil(t, res.Trace)
	assert.Equal(t, 200, res.Cases, "every one of the cases asked for ran")
}

func TestBadOptions(t *testing.T) {
	_, err := rapidpeer.Run(context.Background(), tokenring.System(), rapidpeer.Config{
		Options: record.Options{"no-such-option": "1"},
	})
	assert.ErrorContains(t, err, "no-such-option")
}

// BenchmarkFindAndShrink times rapid's search and shrinking of each token
// ring bug, and reports the shrunk case's size.
func BenchmarkFindAndShrink(b *testing.B) {
	for _, c := range ringBugs {
		b.Run(c.bug, func(b *testing.B) {
			sys := tokenring.System()
			var res *rapidpeer.Result
			for b.Loop() {
				var err error
				res, err = rapidpeer.Run(context.Background(), sys, ringConfig(c.bug, c.fingerprint))
				if err != nil || !res.Found {
					b.Fatalf("rapid found no %s violation: %v", c.bug, err)
				}
			}
			b.ReportMetric(float64(res.Deliveries), "deliveries")
			b.ReportMetric(res.FindSeconds, "find-s")
			b.ReportMetric(res.ShrinkSeconds, "shrink-s")
		})
	}
}
