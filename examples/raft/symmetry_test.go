package raft

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/record"
)

// swap23 exchanges raft-2 and raft-3.
func swap23() record.Perm { return record.Perm{"raft-2": "raft-3", "raft-3": "raft-2"} }

func TestSymmetryHoldsWhenBootstrapListsAreEqual(t *testing.T) {
	o := record.Options{OptMembers: "4"}
	evs := append(Setup(o), record.SendEvent("raft-2", ClientCommand{Cmd: 1}))
	assert.True(t, symmetric(o, evs, swap23()))
	assert.True(t, symmetric(o, evs, record.Perm{"raft-1": "raft-4", "raft-4": "raft-1"}))
	assert.False(t, symmetric(o, evs, record.Perm{"raft-2": "raft-5", "raft-5": "raft-2"}), "raft-5 is no member")
}

func TestSymmetryDoesNotHoldWhenBootstrapListsDiffer(t *testing.T) {
	o := record.Options{OptMembers: "4"}
	evs := Setup(o)
	// raft-3's Bootstrap lists only three members: raft-2 and raft-3 are
	// no longer interchangeable, raft-1 and raft-2 still are.
	evs[6] = record.SendEvent("raft-3", Bootstrap{Members: []record.ActorID{"raft-1", "raft-2", "raft-3"}})
	assert.False(t, symmetric(o, evs, swap23()))
	assert.True(t, symmetric(o, evs, record.Perm{"raft-1": "raft-2", "raft-2": "raft-1"}))
	// Every member lists raft-1, raft-2 and raft-3: exchanging raft-3 and
	// raft-4 changes who is listed.
	short := []record.ActorID{"raft-1", "raft-2", "raft-3"}
	for i := 4; i < 8; i++ {
		evs[i] = record.SendEvent(evs[i].To, Bootstrap{Members: short})
	}
	assert.False(t, symmetric(o, evs, record.Perm{"raft-3": "raft-4", "raft-4": "raft-3"}))
	assert.True(t, symmetric(o, evs, record.Perm{"raft-1": "raft-3", "raft-3": "raft-1"}))
	// Only raft-1 to raft-3 start: raft-4 is not raft-3's peer.
	evs = Setup(o)
	evs = append(evs[:3:3], evs[4:]...)
	assert.False(t, symmetric(o, evs, record.Perm{"raft-3": "raft-4", "raft-4": "raft-3"}))
	assert.True(t, symmetric(o, evs, swap23()))
}

func TestSymmetryDoesNotHoldForBootstrapListsOutOfOrder(t *testing.T) {
	o := record.Options{OptMembers: "3"}
	evs := Setup(o)
	for i := 3; i < 6; i++ {
		evs[i] = record.SendEvent(evs[i].To, Bootstrap{Members: []record.ActorID{"raft-2", "raft-1", "raft-3"}})
	}
	assert.False(t, symmetric(o, evs, swap23()), "a member iterates its list in order")
}

func TestRelabelMessageRelabelsEveryActorField(t *testing.T) {
	p := record.Perm{"raft-1": "raft-2", "raft-2": "raft-1"}
	assert.Equal(t, Bootstrap{Members: []record.ActorID{"raft-1", "raft-2", "raft-3"}},
		relabelMessage(Bootstrap{Members: []record.ActorID{"raft-1", "raft-2", "raft-3"}}, p), "kept in member order")
	assert.Equal(t, Bootstrap{Members: []record.ActorID{"raft-1", "raft-3"}},
		relabelMessage(Bootstrap{Members: []record.ActorID{"raft-2", "raft-3"}}, p))
	assert.Equal(t, RequestVote{Term: 2, Candidate: "raft-2", LastLogIndex: 1},
		relabelMessage(RequestVote{Term: 2, Candidate: "raft-1", LastLogIndex: 1}, p))
	ae := AppendEntries{Term: 3, Leader: "raft-2", Entries: []Entry{{1, 5}}}
	assert.Equal(t, AppendEntries{Term: 3, Leader: "raft-1", Entries: []Entry{{1, 5}}}, relabelMessage(ae, p))
	assert.Equal(t, record.ActorID("raft-2"), ae.Leader, "the message is not changed")

	// Every field of a message type that holds actor IDs is relabelled:
	// fill each such field with raft-1 and look for raft-2 after.
	var named []string // the message types with actor fields
	for _, m := range messages() {
		v := reflect.New(reflect.TypeOf(m)).Elem()
		actorFields := 0
		for i := range v.NumField() {
			f := v.Field(i)
			switch f.Type() {
			case reflect.TypeOf(record.ActorID("")):
				f.SetString("raft-1")
				actorFields++
			case reflect.TypeOf([]record.ActorID(nil)):
				f.Set(reflect.ValueOf([]record.ActorID{"raft-1"}))
				actorFields++
			}
		}
		out := reflect.ValueOf(relabelMessage(v.Interface(), p))
		require.Equal(t, v.Type(), out.Type())
		for i := range out.NumField() {
			switch f := out.Field(i); f.Type() {
			case reflect.TypeOf(record.ActorID("")):
				assert.Equal(t, "raft-2", f.String(), "%T.%s", m, out.Type().Field(i).Name)
			case reflect.TypeOf([]record.ActorID(nil)):
				assert.Equal(t, []record.ActorID{"raft-2"}, f.Interface(), "%T.%s", m, out.Type().Field(i).Name)
			}
		}
		if actorFields == 0 {
			assert.Equal(t, v.Interface(), out.Interface(), "%T names no actor", m)
		} else {
			named = append(named, reflect.TypeOf(m).Name())
		}
	}
	assert.Subset(t, named, []string{"Bootstrap", "RequestVote", "AppendEntries"}, "the loop saw the types that name actors")
}

func TestRelabelViolation(t *testing.T) {
	p := record.Perm{"raft-1": "raft-3", "raft-3": "raft-1"}
	for _, c := range []struct{ in, want string }{
		{"LogMatching(raft-1,raft-2)", "LogMatching(raft-2,raft-3)"},
		{"ElectionSafety(raft-2,raft-3)", "ElectionSafety(raft-1,raft-2)"},
		{"LeaderCompleteness(raft-1)", "LeaderCompleteness(raft-3)"},
		{"StateMachineSafety(raft-2,raft-4)", "StateMachineSafety(raft-2,raft-4)"},
		{"panic: assertion failed: leader raft-3 has a nextIndex beyond its log @ raft.(*Node).sendAppend",
			"panic: assertion failed: leader raft-1 has a nextIndex beyond its log @ raft.(*Node).sendAppend"},
	} {
		got, ok := relabelViolation(c.in, p)
		assert.True(t, ok, c.in)
		assert.Equal(t, c.want, got, c.in)
	}
	_, ok := relabelViolation("something else", p)
	assert.False(t, ok)
}
