package minimize

import (
	"testing"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
)

// names renders a plan as its events' short names, wildcards with a "*".
func names(p dpor.Plan) []string {
	var out []string
	for _, st := range p {
		s := string(st.Event.Actor)
		if st.Event.Kind == record.Deliver {
			s = string(st.Event.From) + ">" + string(st.Event.To)
		}
		if st.Wildcard {
			s += "*"
		}
		out = append(out, s)
	}
	return out
}

func reorderPlan() dpor.Plan {
	ev := []record.Event{
		{Kind: record.Start, Actor: "a"},
		{Kind: record.Start, Actor: "b"},
		{Kind: record.Deliver, From: "a", To: "b"},
		{Kind: record.Deliver, From: "b", To: "a"},
		{Kind: record.Deliver, From: "c", To: "b"},
	}
	p := make(dpor.Plan, len(ev))
	for i, e := range ev {
		p[i].Event = e
	}
	return p
}

func TestMoveToLaterAndEarlier(t *testing.T) {
	bp := reorderPlan()
	assert.Equal(t, []string{"b", "a>b*", "a", "b>a*", "c>b*"}, names(moveTo(0, 3)(nil, bp)), "start a after the first delivery")
	assert.Equal(t, []string{"a", "b", "c>b*", "a>b*", "b>a*"}, names(moveTo(4, 2)(nil, bp)), "c>b before a>b")
	assert.Equal(t, []string{"a", "b", "a>b", "b>a", "c>b*"}, names(moveTo(4, 5)(nil, bp)), "moving to its own place changes nothing but wildcards")
	assert.Equal(t, []string{"a", "b", "a>b", "b>a", "c>b"}, names(bp), "the base plan is not modified")
}

func TestInsertAtMakesLaterDeliveriesWildcards(t *testing.T) {
	bp := reorderPlan()
	x := record.Event{Kind: record.Start, Actor: "c"}
	assert.Equal(t, []string{"a", "b", "a>b", "c", "b>a*", "c>b*"}, names(insertAt(x, 3)(nil, bp)))
	assert.Equal(t, []string{"a", "b", "a>b", "b>a", "c>b", "c"}, names(insertAt(x, 5)(nil, bp)))
}

func TestRemovalsTakeTheFIFOQueueSuffix(t *testing.T) {
	ev := []record.Event{
		{Kind: record.Start, Actor: "a"},
		{Kind: record.Deliver, From: "a", To: "b"},
		{Kind: record.Deliver, From: "a", To: "a", Timer: "t"},
		{Kind: record.Deliver, From: "a", To: "b"},
	}
	assert.Equal(t, [][]int{{0}, {3}, {2}, {1, 3}}, removals(ev, true))
	assert.Equal(t, [][]int{{0}, {3}, {2}, {1}}, removals(ev, false))
}

func TestReinsertableKeepsTheFirstOfEachShape(t *testing.T) {
	ev := []record.Event{
		{Kind: record.Start, Actor: "a"},
		{Kind: record.Send, To: "a", Msg: "x"},
		{Kind: record.Deliver, From: "a", To: "b"},
		{Kind: record.Send, To: "a", Msg: "y"},
		{Kind: record.Partition, A: []record.ActorID{"a"}, B: []record.ActorID{"b"}},
		{Kind: record.Send, To: "b", Msg: "z"},
	}
	got := reinsertable(ev)
	assert.Equal(t, []record.Event{ev[0], ev[1], ev[5]}, got)
}
