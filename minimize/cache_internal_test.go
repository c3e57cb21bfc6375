package minimize

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/examples"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/record"
)

// TestCheckKeyCoversWhatACheckReads: two plans built apart from the same
// events have one key; a change of anything a check reads of a plan (a
// step's fields, a delivery's fingerprint or matching flags, an external
// message's contents, the steps themselves) or of its settings gives
// another key.
func TestCheckKeyCoversWhatACheckReads(t *testing.T) {
	tr, _, err := record.ReadFile(filepath.Join("..", "examples", "traces", "paxos-accept-below-promise.trace"), examples.Catalog())
	require.NoError(t, err)
	fp := fingerprint.New(nil)
	plan := func() dpor.Plan { return dpor.FromEvents(fp, tr.Events) }
	set := checkSettings{mode: dpor.TFB, maxSched: 16}
	key, ok := keyOf(set, plan())
	require.True(t, ok)
	again, ok := keyOf(set, plan())
	require.True(t, ok)
	require.Equal(t, key, again, "the same plan built twice")

	deliver, send := -1, []int{}
	for i, e := range tr.Events {
		switch {
		case e.Kind == record.Deliver && deliver < 0:
			deliver = i
		case e.Kind == record.Send:
			send = append(send, i)
		}
	}
	require.GreaterOrEqual(t, deliver, 0)
	other := -1 // a send whose message differs from the first send's
	for _, j := range send[1:] {
		a, _ := record.EncodeMessage(tr.Events[send[0]].Msg)
		b, _ := record.EncodeMessage(tr.Events[j].Msg)
		if string(a) != string(b) {
			other = j
			break
		}
	}
	require.GreaterOrEqual(t, other, 0, "the trace has two different external messages")

	changes := map[string]func(p dpor.Plan) dpor.Plan{
		"fingerprint": func(p dpor.Plan) dpor.Plan { p[deliver].FP.Full++; return p },
		"type":        func(p dpor.Plan) dpor.Plan { p[deliver].FP.Type++; return p },
		"wildcard":    func(p dpor.Plan) dpor.Plan { p[deliver].Wildcard = true; return p },
		"reroute":     func(p dpor.Plan) dpor.Plan { p[deliver].Reroute = true; return p },
		"flush":       func(p dpor.Plan) dpor.Plan { p[deliver].Flush = true; return p },
		"receiver":    func(p dpor.Plan) dpor.Plan { p[deliver].Event.To += "x"; return p },
		"timer":       func(p dpor.Plan) dpor.Plan { p[deliver].Event.Timer += "x"; return p },
		"contents":    func(p dpor.Plan) dpor.Plan { p[send[0]].Event.Msg = p[other].Event.Msg; return p },
		"removed":     func(p dpor.Plan) dpor.Plan { return append(p[:deliver:deliver], p[deliver+1:]...) },
		"swapped": func(p dpor.Plan) dpor.Plan {
			p[send[0]], p[other] = p[other], p[send[0]]
			return p
		},
	}
	seen := map[checkKey]string{key: "unchanged"}
	for name, change := range changes {
		k, ok := keyOf(set, change(plan()))
		require.True(t, ok, name)
		require.NotContains(t, seen, k, "%s gives the key of %s", name, seen[k])
		seen[k] = name
	}
	for name, s := range map[string]checkSettings{
		"mode":      {mode: dpor.STS, maxSched: 16},
		"schedules": {mode: dpor.TFB, maxSched: 17},
		"broad":     {mode: dpor.TFB, maxSched: 16, broad: true},
	} {
		k, ok := keyOf(s, plan())
		require.True(t, ok, name)
		require.NotContains(t, seen, k, "settings %s give the key of %s", name, seen[k])
		seen[k] = name
	}
}

// TestCheckedIsBounded: the cache holds at most two generations of
// checkedCap keys; a key stays for at least one generation after it was
// remembered, and is gone two generations later.
func TestCheckedIsBounded(t *testing.T) {
	c := newChecked()
	key := func(i int) checkKey { var k checkKey; k[0], k[1], k[2] = byte(i), byte(i>>8), byte(i>>16); return k }
	c.remember(key(0), 7)
	for i := 1; i < 2*checkedCap; i++ {
		c.remember(key(i), 1)
		require.LessOrEqual(t, len(c.cur)+len(c.old), 2*checkedCap)
	}
	n, ok := c.lookup(key(0))
	require.True(t, ok, "a key stays one generation after its own")
	require.Equal(t, 7, n)
	for i := 2 * checkedCap; i < 3*checkedCap; i++ {
		c.remember(key(i), 1)
	}
	_, ok = c.lookup(key(0))
	require.False(t, ok, "two generations later the key is gone")
	require.LessOrEqual(t, len(c.cur)+len(c.old), 2*checkedCap)
}

// TestCheckRemembersFailures: a check that found nothing is answered from
// the cache the second time, with the schedules it ran; a check that
// found the violation is run again (and finds it again).
func TestCheckRemembersFailures(t *testing.T) {
	sys, tr := tokenTrace(t)
	m, err := newStageMinimizer(sys, tr, tr, 1)
	require.NoError(t, err)
	c := m.checks[0]
	c.SetMode(dpor.TFB)
	c.SetMaxSchedules(4)
	set := checkSettings{mode: dpor.TFB, maxSched: 4}
	whole := dpor.FromEvents(c.Fingerprinter(), tr.Events)
	none := whole[:len(whole)/3] // stops before the violation

	r1, err := m.cachedCheck(context.Background(), c, set, none)
	require.NoError(t, err)
	require.Nil(t, r1.Trace)
	require.Positive(t, r1.Schedules)
	r2, err := m.cachedCheck(context.Background(), c, set, none)
	require.NoError(t, err)
	assert.Equal(t, r1, r2, "the remembered answer is the check's")
	assert.Equal(t, int64(1), m.checked.hits.Load())

	for range 2 {
		r, err := m.cachedCheck(context.Background(), c, set, whole)
		require.NoError(t, err)
		require.NotNil(t, r.Trace)
	}
	assert.Equal(t, int64(1), m.checked.hits.Load(), "a success is not remembered")
}
