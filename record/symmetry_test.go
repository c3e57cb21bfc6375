package record_test

import (
	"testing"

	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
)

// fourMembers are the members of the toy runs.
func fourMembers() []record.ActorID { return []record.ActorID{"n-1", "n-2", "n-3", "n-4"} }

func TestPermOfAllPermutes(t *testing.T) {
	p := record.Perm{"n-2": "n-3", "n-3": "n-2"}
	assert.Equal(t, record.ActorID("n-3"), p.Of("n-2"))
	assert.Equal(t, record.ActorID("n-1"), p.Of("n-1"), "an actor p does not list keeps its name")
	assert.Equal(t, []record.ActorID{"n-1", "n-3", "n-2"}, p.All([]record.ActorID{"n-1", "n-2", "n-3"}))
	assert.Nil(t, p.All(nil))
	assert.True(t, p.Permutes(fourMembers()))
	assert.False(t, record.Perm{"n-2": "n-3"}.Permutes(fourMembers()), "n-3 would have two preimages")
	assert.False(t, record.Perm{"n-2": "x", "x": "n-2"}.Permutes(fourMembers()), "x is no member")
	assert.Equal(t, "n-2→n-3 n-3→n-2", p.String())
	assert.Equal(t, "identity", record.Perm{"n-1": "n-1"}.String())
}

func TestNamedActorsAndReplaceMatchWholeNames(t *testing.T) {
	members := []record.ActorID{"raft-1", "raft-2", "raft-12"}
	assert.Equal(t, []record.ActorID{"raft-12", "raft-1"}, record.NamedActors("Inv(raft-12,raft-1)", members))
	assert.Empty(t, record.NamedActors("Inv(raft-123)", members), "raft-12 inside raft-123 is not named")
	p := record.Perm{"raft-1": "raft-2", "raft-2": "raft-1"}
	assert.Equal(t, "leader raft-2 and raft-12, not raft-1x", p.Replace("leader raft-1 and raft-12, not raft-1x"))
}

// pairSymmetry is a toy system's symmetry: every relabelling holds except
// those that move n-4 (say, n-4 alone has another configuration); the
// fingerprint names a pair, in member order.
func pairSymmetry() *record.Symmetry {
	return &record.Symmetry{
		Holds: func(_ record.Options, _ []record.Event, p record.Perm) bool { return p.Of("n-4") == "n-4" },
		Message: func(m record.Message, p record.Perm) record.Message {
			if s, ok := m.(string); ok {
				return string(p.Of(record.ActorID(s)))
			}
			return m
		},
		Violation: func(fp string, p record.Perm) (string, bool) {
			ids := record.NamedActors(fp, fourMembers())
			if len(ids) != 2 {
				return "", false
			}
			a, b := p.Of(ids[0]), p.Of(ids[1])
			if a > b {
				a, b = b, a
			}
			return "Inv(" + string(a) + "," + string(b) + ")", true
		},
	}
}

func TestImagesMapEveryOtherImageBack(t *testing.T) {
	s := pairSymmetry()
	got := s.Images(nil, fourMembers(), nil, "Inv(n-1,n-2)", 4)
	// The relabellings that keep n-4 map the pair onto every other pair
	// of n-1..n-3; each image comes with the inverse of the first
	// relabelling (lexicographic) that gives it, none with the target.
	assert.Equal(t, map[string]record.Perm{
		"Inv(n-1,n-3)": {"n-1": "n-1", "n-2": "n-3", "n-3": "n-2", "n-4": "n-4"},
		"Inv(n-2,n-3)": {"n-1": "n-3", "n-2": "n-1", "n-3": "n-2", "n-4": "n-4"},
	}, got)
	for img, back := range got {
		fp, ok := s.Violation(img, back)
		assert.True(t, ok)
		assert.Equal(t, "Inv(n-1,n-2)", fp, "the relabelling maps %s back", img)
	}
	assert.Empty(t, s.Images(nil, fourMembers(), nil, "Inv(n-1,n-2)", 3), "more members than allowed")
	assert.Empty(t, s.Images(nil, fourMembers(), nil, "Other(n-1)", 4), "nothing the symmetry relabels")
	var none *record.Symmetry
	assert.Nil(t, none.Images(nil, fourMembers(), nil, "Inv(n-1,n-2)", 4), "no symmetry")
}

func TestRelabelEvents(t *testing.T) {
	s := pairSymmetry()
	p := record.Perm{"n-2": "n-3", "n-3": "n-2"}
	in := []record.Event{
		record.StartEvent("n-2"),
		record.SendEvent("n-3", "n-2"),
		{Kind: record.Deliver, ID: 7, From: "n-2", To: "n-1", Msg: "n-3", Cause: 1},
		{Kind: record.Deliver, ID: 8, From: record.External, To: "n-3", Msg: "n-1", Cause: 1},
		record.PartitionEvent([]record.ActorID{"n-1", "n-2"}, []record.ActorID{"n-3"}),
	}
	out := s.Relabel(in, p)
	assert.Equal(t, []record.Event{
		record.StartEvent("n-3"),
		record.SendEvent("n-2", "n-3"),
		{Kind: record.Deliver, ID: 7, From: "n-3", To: "n-1", Msg: "n-2", Cause: 1},
		{Kind: record.Deliver, ID: 8, From: record.External, To: "n-2", Msg: "n-1", Cause: 1},
		record.PartitionEvent([]record.ActorID{"n-1", "n-3"}, []record.ActorID{"n-2"}),
	}, out)
	assert.Equal(t, record.ActorID("n-2"), in[0].Actor, "the input is not changed")
	assert.Equal(t, []record.ActorID{"n-1", "n-2"}, in[4].A, "the input is not changed")
}
