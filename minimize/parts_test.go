package minimize

import (
	"testing"

	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type cmd struct {
	Name  string
	Args  []int
	Count int
	Flag  bool
	Seq   int `demi:"-"`
	inner int
}

// TestMentions checks that a violation names a member only as a whole
// word (record.NamedActors, as componentOrder reads it).
func TestMentions(t *testing.T) {
	for _, tc := range []struct {
		text, id string
		want     bool
	}{
		{"ElectionSafety(raft-1,raft-2)", "raft-1", true},
		{"ElectionSafety(raft-1,raft-2)", "raft-2", true},
		{"ElectionSafety(raft-10,raft-2)", "raft-1", false},
		{"leader raft-3 of term 2", "raft-3", true},
		{"two-tokens: token held by n1 and n2", "n1", true},
		{"n12 holds it", "n1", false},
		{"", "n1", false},
	} {
		named := record.NamedActors(tc.text, []record.ActorID{record.ActorID(tc.id)})
		assert.Equal(t, tc.want, len(named) > 0, "%q in %q", tc.id, tc.text)
	}
}

func TestCausalCone(t *testing.T) {
	evs := []record.Event{
		{Kind: record.Start, Actor: "a", Cause: -1},
		{Kind: record.Deliver, To: "a", Timer: "t", Cause: 0}, // 1: timer
		{Kind: record.Deliver, To: "b", Cause: 1},             // 2: sent by 1
		{Kind: record.Deliver, To: "c", Cause: 0},             // 3: unrelated
		{Kind: record.Deliver, To: "a", Cause: 2},             // 4: sent by 2
		{Kind: record.Deliver, To: "c", Cause: 3},             // 5: sent by 3
	}
	require.Equal(t, []int{1, 2, 4}, causalCone(evs, 1))
	require.Equal(t, []int{3, 5}, causalCone(evs, 3))
	require.Equal(t, []int{5}, causalCone(evs, 5))
}

func TestValidExternals(t *testing.T) {
	evs := []record.Event{
		record.StartEvent("a"),   // 0
		record.RestartEvent("b"), // 1: b never started
		record.StartEvent("b"),   // 2
		record.KillEvent("b"),    // 3
		record.HealEvent([]record.ActorID{"a"}, []record.ActorID{"b"}), // 4: no partition before
		record.PartitionEvent([]record.ActorID{"a"}, []record.ActorID{"b"}),
		record.HealEvent([]record.ActorID{"b"}, []record.ActorID{"a"}), // 6
	}
	require.Equal(t, []int{0, 2, 3, 5, 6}, validExternals(evs, []int{0, 1, 2, 3, 4, 5, 6}))
	require.Equal(t, []int{0}, validExternals(evs, []int{0, 3, 6}))

	units := externalUnits(evs)
	require.Contains(t, units, []int{5, 6}, "a partition travels with its heal")
}
