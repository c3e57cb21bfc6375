package minimize

import (
	"testing"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRerouteEditsDropWindowsAndRerouteTheRest(t *testing.T) {
	// events: 0,1 externals; 2, 3, 4 deliveries; 5 external; 6 delivery.
	ev := chain(2, []int{0, 2, 3}, nil)
	ev = append(ev, record.Event{Kind: record.Send, To: "a", Cause: -1},
		record.Event{Kind: record.Deliver, From: "a", To: "b", Cause: 4})
	for i := range ev {
		ev[i].Actor = record.ActorID(rune('0' + i)) // to tell the events apart below
	}
	edits := rerouteEdits(ev, 40)
	// Windows of 1, 2 and 3 of the 4 deliveries: 4 + 3 + 2.
	require.Len(t, edits, 9)
	bp := dpor.FromEvents(fingerprint.New(nil), ev)

	// The first move drops the last delivery alone: nothing after it.
	p := edits[0](nil, bp)
	require.Len(t, p, 6)
	for _, st := range p {
		assert.False(t, st.Reroute)
	}

	// Windows of two, from the end: the second drops deliveries 3 and 4;
	// the external at 5 stays as it is, delivery 6 may be rerouted.
	p = edits[5](nil, bp)
	require.Len(t, p, 5)
	var kept string
	for _, st := range p {
		kept += string(st.Event.Actor)
	}
	assert.Equal(t, "01256", kept)
	assert.Equal(t, []bool{false, false, false, false, true}, []bool{p[0].Reroute, p[1].Reroute, p[2].Reroute, p[3].Reroute, p[4].Reroute})
	assert.True(t, p[4].Wildcard)
	assert.False(t, p[3].Wildcard, "externals are not wildcards")
}

func TestRerouteEditsSkipLongTraces(t *testing.T) {
	most := passNamed(passTable(), StageRetarget).deliveries
	causes := make([]int, most+1)
	assert.Empty(t, rerouteEdits(chain(1, causes, nil), most))
	assert.Len(t, rerouteEdits(chain(1, causes[:most], nil), most), most*(most+1)/2-1)
}
