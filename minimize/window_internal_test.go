package minimize

import (
	"testing"

	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
)

// chain builds a trace: setup externals, then deliveries; causes[j] is
// the cause of the j-th delivery (an event index), timer[j] marks a timer.
func chain(setup int, causes []int, timers map[int]bool) []record.Event {
	var ev []record.Event
	for i := 0; i < setup; i++ {
		ev = append(ev, record.Event{Kind: record.Send, To: "a", Cause: -1})
	}
	for j, c := range causes {
		e := record.Event{Kind: record.Deliver, From: "a", To: "b", Cause: c}
		if timers[j] {
			e.Timer = "t"
		}
		ev = append(ev, e)
	}
	return ev
}

func TestQuiescentPoints(t *testing.T) {
	// events: 0,1 setup; 2 (cause 0: a setup message); 3 (cause 2);
	// 4 (cause 2); 5 (cause 4, a timer); 6 (cause 5).
	ev := chain(2, []int{0, 2, 2, 4, 5}, map[int]bool{3: true})
	got := quiescentPoints(ev, 2)
	// Cut at k: no non-timer delivery at or after k of a message sent in
	// [2, k). k=3: deliveries 3 and 4 are of 2's messages → busy; k=4:
	// 4 is of 2's → busy; k=5: 5 is a timer (of 4) → quiet; k=6: 6 is of
	// 5 → busy; k=7: the end → quiet.
	assert.Equal(t, []bool{true, true, true, false, false, true, false, true}, got)
}

func TestWindowCandidatesShortestFirst(t *testing.T) {
	// 4 setup events, then 1,000 deliveries, each of the message the one
	// before sent, except that every 100th starts afresh from a timer:
	// quiescent points every 100 events.
	causes := make([]int, 1000)
	timers := map[int]bool{}
	for j := range causes {
		causes[j] = 4 + j - 1
		if j%100 == 0 {
			timers[j] = true
		}
	}
	causes[0] = 0
	ev := chain(4, causes, timers)
	// Deliveries of setup messages (cause < 4) go with the setup.
	ev[4+750].Cause = 1
	cands := windowCandidates(ev, len(ev)-1)
	var lens []int
	for _, c := range cands {
		lens = append(lens, c.end-c.start)
		assert.Equal(t, len(ev), c.end, "every window ends with the violation's event")
	}
	// Windows of at least 32, 64, 128, 256 (up to half the trace): each
	// starts at the latest quiescent point (every 100th delivery, at event
	// 4+100k) that makes it long enough, if that point is within twice the
	// length; the shortest has none that close and is exactly 32 long.
	assert.Equal(t, []int{32, 100, 200, 300}, lens)
	assert.Equal(t, []int{0, 1, 2, 3, 4, 754}, cands[0].setup, "the setup, and the deliveries of setup messages before the window")
	assert.Equal(t, []int{0, 1, 2, 3, 4}, cands[3].setup, "a setup delivery inside the window is not repeated")

	assert.Empty(t, windowCandidates(ev[:100], 99), "a short trace has no windows")
}
