package record_test

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/record"
)

// The boot system: "boot" sends "peer" an unignorable Hello when told to
// Go (its bootstrap), and on its repeating "tick" timer a Ping. The
// invariant breaks when peer has its Hello. With "pingpong" on, boot and
// peer play ping-pong with Pings from the start, without end.

type Go struct{}

type Hello struct{ Boot bool }

func (h Hello) Unignorable() bool { return h.Boot }

type beat struct{}

type bootActor struct {
	id       record.ActorID
	pingpong bool
	hello    bool
}

func (a *bootActor) Start(ctx *record.Context) {
	if a.id == "boot" {
		ctx.SetTimer("tick", beat{})
		if a.pingpong {
			ctx.Send("peer", Ping{N: 1})
		}
	}
}

func (a *bootActor) Receive(ctx *record.Context, from record.ActorID, msg record.Message) {
	switch m := msg.(type) {
	case Go:
		ctx.Send("peer", Hello{Boot: true})
	case beat:
		ctx.Send("peer", Ping{})
		ctx.SetTimer("tick", beat{})
	case Hello:
		a.hello = true
	case Ping:
		if a.pingpong {
			ctx.Send(from, Ping{N: m.N + 1})
		}
	}
}

func bootSystem() *record.System {
	return &record.System{
		Name:    "boot",
		Options: []record.OptionSpec{{Name: "pingpong", Default: "false", Usage: "endless ping-pong"}},
		Members: func(record.Options) []record.ActorID { return []record.ActorID{"boot", "peer"} },
		New: func(id record.ActorID, o record.Options) record.Actor {
			return &bootActor{id: id, pingpong: o.Bool("pingpong")}
		},
		Messages: []record.Message{Go{}, Hello{}, beat{}, Ping{}},
		Invariant: func(v record.View) *record.Violation {
			if a, ok := v.Actor("peer").(*bootActor); ok && a.hello {
				return &record.Violation{Fingerprint: "Hello", Detail: "peer has its hello"}
			}
			return nil
		},
	}
}

// bootTrace is the run start boot, start peer, send Go, deliver Go,
// deliver Hello, which breaks the invariant.
func bootTrace(t *testing.T, opts record.Options) *record.Trace {
	t.Helper()
	sim, err := record.NewSim(bootSystem(), opts, 1)
	require.NoError(t, err)
	apply(t, sim, record.StartEvent("boot"), record.StartEvent("peer"), record.SendEvent("boot", Go{}))
	for _, typ := range []string{"Go", "Hello"} {
		i := slices.IndexFunc(sim.Enabled(nil), func(p record.Pending) bool { return record.TypeName(p.Msg) == typ })
		require.GreaterOrEqual(t, i, 0, "no %s pending", typ)
		require.NoError(t, sim.Deliver(sim.Enabled(nil)[i].ID))
	}
	v := sim.Check()
	require.NotNil(t, v)
	return sim.Trace(v)
}

// without returns the trace's events without those of the given kinds
// whose message has type typ.
func without(t *record.Trace, typ string, kinds ...record.Kind) []record.Event {
	return slices.DeleteFunc(slices.Clone(t.Events), func(e record.Event) bool {
		return slices.Contains(kinds, e.Kind) && record.TypeName(e.Msg) == typ
	})
}

func follow(t *testing.T, tr *record.Trace, evs []record.Event, f record.Follow) *record.Driver {
	t.Helper()
	f.Want = tr.Header.Violation
	d, err := record.NewDriver(tr.Setup(bootSystem()), evs, f)
	require.NoError(t, err)
	require.NoError(t, d.Run(context.Background()))
	return d
}

// TestUnignorableWaitFindsTheMessage: the step that delivers Go is gone
// from the schedule, so Hello is not pending at its step; the driver waits,
// delivers Go, and Hello comes.
func TestUnignorableWaitFindsTheMessage(t *testing.T) {
	tr := bootTrace(t, nil)
	evs := without(tr, "Go", record.Deliver)
	var waited []int
	d := follow(t, tr, evs, record.Follow{Wait: true, Observe: func(_ *record.Sim, o *record.Outcome) bool {
		if o.Step >= 0 {
			waited = append(waited, o.Waited)
		}
		return true
	}})
	require.Nil(t, d.Divergence())
	assert.True(t, d.Found())
	assert.Equal(t, []int{0, 0, 0, 1}, waited, "the Hello step waited one delivery")
	assert.True(t, d.Left(), "the wait took the run off the schedule")

	// Without waiting, the exact replay diverges at the Hello step.
	d = follow(t, tr, evs, record.Follow{})
	require.NotNil(t, d.Divergence())
	assert.Equal(t, 3, d.Divergence().Event)
	assert.Contains(t, d.Divergence().Got, "no message #")
	// Loosely, it is skipped and the violation never comes.
	d = follow(t, tr, evs, record.Follow{Loose: record.MatchType})
	assert.Nil(t, d.Divergence())
	assert.False(t, d.Found())
	// Loosely with Wait, it waits as the exact replay does.
	d = follow(t, tr, evs, record.Follow{Loose: record.MatchType, Wait: true})
	assert.Nil(t, d.Divergence())
	assert.True(t, d.Found())
}

// TestUnignorableNeverSent: the Go message itself is gone, so Hello can
// never come; the driver fires boot's tick timer, delivers its Ping, fires
// it again, sees the cycle and reports the missing message.
func TestUnignorableNeverSent(t *testing.T) {
	tr := bootTrace(t, nil)
	evs := without(tr, "Go", record.Deliver, record.Send)
	var off []string
	d := follow(t, tr, evs, record.Follow{Wait: true, Observe: func(_ *record.Sim, o *record.Outcome) bool {
		if o.Step < 0 {
			off = append(off, record.TypeName(o.Delivered.Msg))
		}
		return true
	}})
	require.NotNil(t, d.Divergence())
	assert.Equal(t, []string{"beat", "Ping", "beat", "Ping"}, off)
	assert.Equal(t, record.Divergence{Event: 2, Expected: "deliver #3 boot→peer Hello{Boot:true}",
		Got: "the unignorable message was never sent: waited 4 deliveries for it; only timers that repeat in a cycle are pending (tick at boot)"},
		*d.Divergence())
	assert.False(t, d.Found())
}

// TestUnignorableWaitLimit: with an endless exchange of ordinary messages
// the wait ends at the limit.
func TestUnignorableWaitLimit(t *testing.T) {
	tr := bootTrace(t, record.Options{"pingpong": "true"})
	evs := without(tr, "Go", record.Deliver, record.Send)
	d := follow(t, tr, evs, record.Follow{Wait: true, WaitLimit: 50})
	require.NotNil(t, d.Divergence())
	assert.Equal(t, "the unignorable message was not sent within the wait limit of 50 deliveries", d.Divergence().Got)
	assert.Equal(t, 50, d.Sim().NumDeliveries())
}
