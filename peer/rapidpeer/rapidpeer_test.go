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

func TestFindsAndShrinksTokenRingBugs(t *testing.T) {
	cases := []struct {
		bug         string
		fingerprint string
		// maxDeliveries bounds rapid's shrunk case: restore-token needs the
		// injection, one pass and one token delivery; a lap needs 7.
		maxDeliveries int
	}{
		{"restore-token", "two-tokens", 12},
		{"panic-on-lap", "", 20},
	}
	for _, c := range cases {
		t.Run(c.bug, func(t *testing.T) {
			sys := tokenring.System()
			res, err := rapidpeer.Run(context.Background(), sys, rapidpeer.Config{
				Options: record.Options{c.bug: "true"}, Fingerprint: c.fingerprint,
				Budget: 20 * time.Second, ShrinkBudget: 5 * time.Second, MaxSteps: 200,
				ExternalPermille: 100,
			})
			require.NoError(t, err)
			require.True(t, res.Found, "rapid found no %s violation in %d cases", c.bug, res.Cases)
			t.Logf("%+v", *res)
			require.NotNil(t, res.Trace)
			assert.LessOrEqual(t, res.Deliveries, res.FirstDeliveries, "shrinking never grows the case")
			assert.LessOrEqual(t, res.Deliveries, c.maxDeliveries)
			assert.Equal(t, res.Trace.Header.Deliveries, res.Deliveries)

			r, err := replay.Run(context.Background(), sys, res.Trace)
			require.NoError(t, err)
			assert.True(t, r.Reproduced, "rapid's shrunk case replays exactly")
		})
	}
}

func TestNoBugNoFailure(t *testing.T) {
	res, err := rapidpeer.Run(context.Background(), tokenring.System(), rapidpeer.Config{
		Budget: 300 * time.Millisecond, MaxSteps: 50, Checks: 2000,
	})
	require.NoError(t, err)
	assert.False(t, res.Found)
	assert.Nil(t, res.Trace)
	assert.Positive(t, res.Cases)
}

func TestBadOptions(t *testing.T) {
	_, err := rapidpeer.Run(context.Background(), tokenring.System(), rapidpeer.Config{
		Options: record.Options{"no-such-option": "1"},
	})
	assert.Error(t, err)
}
