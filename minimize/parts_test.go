package minimize

import (
	"testing"

	"github.com/demi-project/demi/examples/raft"
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

func TestVariants(t *testing.T) {
	for _, tc := range []struct {
		name string
		msg  record.Message
		want []record.Message
	}{
		{"integers and strings are renamed, not varied", cmd{Count: 8, Name: "abcd"}, nil},
		{"slice loses each element, last first", cmd{Args: []int{1, 2}},
			[]record.Message{cmd{Args: []int{1}}, cmd{Args: []int{2}}}},
		{"masked and unexported fields stay", cmd{Seq: 3, inner: 4}, nil},
		{"pointer", &cmd{Args: []int{2}}, []record.Message{&cmd{Args: []int{}}}},
		{"shrinkable uses its components", raft.Bootstrap{Members: []record.ActorID{"a", "b"}},
			[]record.Message{raft.Bootstrap{Members: []record.ActorID{"a"}}, raft.Bootstrap{Members: []record.ActorID{"b"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := variants(tc.msg)
			require.Equal(t, tc.want, got)
			for _, v := range got {
				assert.Less(t, valueWeightOf(v), valueWeightOf(tc.msg), "every variant is lighter")
			}
		})
	}
}

func valueWeightOf(m record.Message) uint64 {
	return weight(&record.Trace{Events: []record.Event{{Kind: record.Send, Msg: m}}})
}

// TestVariantsDoNotAlias checks that no variant shares its slice with the
// original: writing into every variant leaves the original as it was.
func TestVariantsDoNotAlias(t *testing.T) {
	orig := cmd{Args: []int{1, 2, 3}}
	vs := variants(orig)
	require.Len(t, vs, 3, "three without one element")
	for _, v := range vs {
		args := v.(cmd).Args
		require.NotEmpty(t, args)
		for i := range args {
			args[i] = 99
		}
	}
	require.Equal(t, []int{1, 2, 3}, orig.Args, "the original is never modified")
}

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
		assert.Equal(t, tc.want, mentions(tc.text, tc.id), "%q in %q", tc.id, tc.text)
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
