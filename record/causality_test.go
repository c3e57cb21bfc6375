package record_test

import (
	"fmt"
	"testing"

	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A hand-built schedule over actors a, b, c:
//
//	0 start a            (ext, a)
//	1 start b            (ext, b)
//	2 send ext→a #1      (ext)
//	3 deliver #1 to a    (a; cause 2)
//	4 deliver #2 a→b     (b; cause 3)
//	5 send ext→c #3      (ext)
//	6 deliver #3 to c    (c; cause 5)
//	7 deliver #4 b→a     (a; cause 4)
//	8 deliver #5 to zz   (unknown receiver: on no process)
func handBuilt() []record.Event {
	d := func(id record.MsgID, from, to record.ActorID, cause int) record.Event {
		return record.Event{Kind: record.Deliver, ID: id, From: from, To: to, Msg: Ping{}, Cause: cause}
	}
	return []record.Event{
		record.StartEvent("a"),
		record.StartEvent("b"),
		{Kind: record.Send, ID: 1, From: record.External, To: "a", Msg: Ping{}, Cause: -1},
		d(1, record.External, "a", 2),
		d(2, "a", "b", 3),
		{Kind: record.Send, ID: 3, From: record.External, To: "c", Msg: Ping{}, Cause: -1},
		d(3, record.External, "c", 5),
		d(4, "b", "a", 4),
		d(5, "a", "zz", 3),
	}
}

func TestHappensBefore(t *testing.T) {
	c := record.NewCausality([]record.ActorID{"a", "b", "c"}, handBuilt())
	before := map[[2]int]bool{
		{0, 1}: true, {0, 2}: true, {0, 3}: true, {0, 4}: true, {0, 5}: true, {0, 6}: true, {0, 7}: true,
		{1, 2}: true, {1, 4}: true, {1, 5}: true, {1, 6}: true, {1, 7}: true, {1, 3}: true,
		{2, 3}: true, {2, 4}: true, {2, 5}: true, {2, 6}: true, {2, 7}: true,
		{3, 4}: true, {3, 7}: true,
		{4, 7}: true,
		{5, 6}: true,
		// 8 is on no process but still follows its cause and what precedes it.
		{0, 8}: true, {1, 8}: true, {2, 8}: true, {3, 8}: true,
	}
	for i := 0; i < 9; i++ {
		for j := 0; j < 9; j++ {
			t.Run(fmt.Sprintf("%d→%d", i, j), func(t *testing.T) {
				assert.Equal(t, before[[2]int{i, j}], c.HappensBefore(i, j))
				if i != j {
					assert.Equal(t, !before[[2]int{i, j}] && !before[[2]int{j, i}], c.Concurrent(i, j))
				}
			})
		}
	}
	assert.False(t, c.Concurrent(3, 3))
}

func TestClock(t *testing.T) {
	c := record.NewCausality([]record.ActorID{"a", "b", "c"}, handBuilt())
	tests := []struct {
		event int
		want  []int32 // a, b, c, ext
	}{
		{0, []int32{1, 0, 0, 1}},
		{1, []int32{1, 1, 0, 2}},
		{2, []int32{1, 1, 0, 3}},
		{3, []int32{2, 1, 0, 3}},
		{4, []int32{2, 2, 0, 3}},
		{5, []int32{1, 1, 0, 4}},
		{6, []int32{1, 1, 1, 4}},
		{7, []int32{3, 2, 0, 3}},
		{8, []int32{2, 1, 0, 3}},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, c.Clock(tc.event), "clock of event %d", tc.event)
	}
}

func TestPast(t *testing.T) {
	c := record.NewCausality([]record.ActorID{"a", "b", "c"}, handBuilt())
	tests := []struct {
		targets []int
		want    []int
	}{
		{[]int{7}, []int{0, 1, 2, 3, 4, 7}},
		{[]int{6}, []int{0, 1, 2, 5, 6}},
		{[]int{4, 6}, []int{0, 1, 2, 3, 4, 5, 6}},
		{[]int{0}, []int{0}},
		{nil, nil},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.targets), func(t *testing.T) {
			past := c.Past(tc.targets...)
			require.Len(t, past, 9)
			var got []int
			for i, in := range past {
				if in {
					got = append(got, i)
				}
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestCausalityOfARecordedRun(t *testing.T) {
	// In a real run every delivery happens after the event that sent its
	// message, and events of one actor are totally ordered.
	sys := gossipSystem(record.FIFO)
	tr := fuzz(t, sys, record.FuzzConfig{Seed: 3, MaxSteps: 300})
	c := record.NewCausality(sys.Members(nil), tr.Events)
	last := map[record.ActorID]int{}
	for j, e := range tr.Events {
		if e.Kind == record.Deliver {
			if e.Cause >= 0 {
				require.True(t, c.HappensBefore(e.Cause, j), "cause %d of %d", e.Cause, j)
			}
			if i, ok := last[e.To]; ok {
				require.True(t, c.HappensBefore(i, j), "%d and %d on %s", i, j, e.To)
			}
			last[e.To] = j
		}
	}
}

func TestActorPast(t *testing.T) {
	ev := []record.Event{
		record.StartEvent("a"), record.StartEvent("b"), record.StartEvent("c"),
		{Kind: record.Deliver, From: "a", To: "a", Timer: "t", Cause: 0}, // 3: a's timer
		{Kind: record.Deliver, From: "c", To: "c", Timer: "t", Cause: 2}, // 4: c's timer
		{Kind: record.Deliver, From: "a", To: "b", Cause: 3},             // 5: a's message to b
		{Kind: record.Deliver, From: "c", To: "b", Cause: 4},             // 6
	}
	assert.Equal(t, []bool{true, true, false, true, false, true}, record.ActorPast(ev, 5), "b's start, a's start and timer: not c")
	assert.Equal(t, []bool{true, true, true, true, true, true, true}, record.ActorPast(ev, 6), "b's earlier delivery and c's message")
	assert.Equal(t, []bool{false, false, true, false, true}, record.ActorPast(ev, 4), "c's start alone")
}
