package record_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewSimErrors(t *testing.T) {
	ok := probeSystem(2, record.FIFO, nil)
	tests := []struct {
		name string
		sys  func() *record.System
		opts record.Options
		want string
	}{
		{"unknown option", func() *record.System { return ok }, record.Options{"nope": "1"}, `no option "nope"`},
		{"bad boolean", func() *record.System { return ok }, record.Options{"flag": "maybe"}, "not a boolean"},
		{"bad integer", func() *record.System { return ok }, record.Options{"size": "three"}, "not an integer"},
		{"no members", func() *record.System { s := *ok; s.Members = nil; return &s }, nil, "Members and New are required"},
		{"no constructor", func() *record.System { s := *ok; s.New = nil; return &s }, nil, "Members and New are required"},
		{"duplicate actor", func() *record.System {
			s := *ok
			s.Members = func(record.Options) []record.ActorID { return []record.ActorID{"a", "a"} }
			return &s
		}, nil, "duplicate actor a"},
		{"reserved id", func() *record.System {
			s := *ok
			s.Members = func(record.Options) []record.ActorID { return []record.ActorID{record.External} }
			return &s
		}, nil, "reserved"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := record.NewSim(tc.sys(), tc.opts, 1)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestApplyRejectsBadEvents(t *testing.T) {
	tests := []struct {
		name string
		e    record.Event
		want string
	}{
		{"deliver is not external", record.Event{Kind: record.Deliver, ID: 1}, "not an external event"},
		{"kind zero", record.Event{}, "not an external event"},
		{"kind out of range", record.Event{Kind: 42}, "not an external event"},
		{"start unknown", record.StartEvent("zz"), `unknown actor "zz"`},
		{"kill unknown", record.KillEvent("zz"), `unknown actor "zz"`},
		{"restart unknown", record.RestartEvent("zz"), `unknown actor "zz"`},
		{"send unknown", record.SendEvent("zz", Ping{}), `unknown actor "zz"`},
		{"send nil", record.SendEvent("a", nil), "nil message"},
		{"partition unknown", record.PartitionEvent([]record.ActorID{"a"}, []record.ActorID{"zz"}), `unknown actor "zz"`},
		{"heal unknown", record.HealEvent([]record.ActorID{"zz"}, []record.ActorID{"a"}), `unknown actor "zz"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newSim(t, probeSystem(2, record.FIFO, nil))
			err := s.Apply(tc.e)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Empty(t, s.Events(), "a rejected event is not recorded")
		})
	}
}

func TestStartKillRestart(t *testing.T) {
	storeAndSend := &behaviour{
		start: func(p *probe, ctx *record.Context) {
			n, _ := ctx.Storage().Get("boots")
			k, _ := n.(int)
			ctx.Storage().Put("boots", k+1)
			p.boots = k + 1
			l, _ := ctx.Storage().Get("last")
			p.last, _ = l.(string)
		},
		recv: func(p *probe, ctx *record.Context, from record.ActorID, msg record.Message) {
			p.scratch++ // volatile
			ctx.Storage().Put("last", record.FormatMessage(msg))
		},
	}
	type want struct {
		running  bool
		starts   int    // Start calls on the current incarnation
		boots    int    // from stable storage: Start calls over all incarnations
		got      int    // messages received by the current incarnation
		last     string // the last message stored, as read by Start
		inflight int    // pending messages to a
	}
	tests := []struct {
		name string
		evs  []record.Event
		// deliver delivers everything enabled after evs[:deliverAt].
		deliverAt int
		want      want
	}{
		{"never started", nil, -1, want{}},
		{"start", []record.Event{record.StartEvent("a")}, -1, want{running: true, starts: 1, boots: 1}},
		{"start twice is a no-op", []record.Event{record.StartEvent("a"), record.StartEvent("a")}, -1,
			want{running: true, starts: 1, boots: 1}},
		{"kill", []record.Event{record.StartEvent("a"), record.KillEvent("a")}, -1, want{boots: 1}},
		{"kill a stopped actor is a no-op", []record.Event{record.KillEvent("a")}, -1, want{}},
		{"restart a stopped actor is a no-op", []record.Event{record.RestartEvent("a")}, -1, want{}},
		{"kill drops pending messages", []record.Event{record.StartEvent("a"), record.SendEvent("a", Ping{1}), record.KillEvent("a")}, -1,
			want{boots: 1}},
		{"kill then start is a fresh actor with storage", []record.Event{record.StartEvent("a"), record.SendEvent("a", Ping{1}),
			record.KillEvent("a"), record.StartEvent("a")}, 2, want{running: true, starts: 1, boots: 2, last: "Ping{N:1}"}},
		{"restart keeps storage, loses volatile state", []record.Event{record.StartEvent("a"), record.SendEvent("a", Ping{7}),
			record.RestartEvent("a")}, 2, want{running: true, starts: 1, boots: 2, last: "Ping{N:7}"}},
		{"restart drops pending messages", []record.Event{record.StartEvent("a"), record.SendEvent("a", Ping{7}),
			record.RestartEvent("a")}, -1, want{running: true, starts: 1, boots: 2}},
		{"messages after restart reach the new incarnation", []record.Event{record.StartEvent("a"), record.RestartEvent("a"),
			record.SendEvent("a", Ping{3})}, 3, want{running: true, starts: 1, boots: 2, got: 1}},
		{"external send to a stopped actor waits for its start", []record.Event{record.SendEvent("a", Ping{4})}, -1,
			want{inflight: 1}},
		{"and is delivered once it starts", []record.Event{record.SendEvent("a", Ping{4}), record.StartEvent("a")}, 2,
			want{running: true, starts: 1, boots: 1, got: 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newSim(t, probeSystem(2, record.FIFO, storeAndSend))
			for i, e := range tc.evs {
				if i == tc.deliverAt {
					deliverAll(t, s, 10)
				}
				apply(t, s, e)
			}
			if tc.deliverAt == len(tc.evs) {
				deliverAll(t, s, 10)
			}
			v := s.View()
			assert.Equal(t, tc.want.running, v.Running("a"))
			inflight := 0
			for _, p := range s.InFlight() {
				if p.To == "a" {
					inflight++
				}
			}
			assert.Equal(t, tc.want.inflight, inflight, "pending messages to a")
			if tc.want.running {
				p := probeOf(t, s, "a")
				assert.Equal(t, tc.want.starts, p.starts)
				assert.Len(t, p.got, tc.want.got)
				assert.Equal(t, tc.want.got, p.scratch)
				assert.Equal(t, tc.want.boots, p.boots, "boot count kept in stable storage")
				assert.Equal(t, tc.want.last, p.last, "stable storage as read on start")
			} else {
				assert.Nil(t, v.Actor("a"))
			}
			assert.Equal(t, len(tc.evs), s.NumExternals(), "every external is recorded, no-ops too")
		})
	}
}

func TestExternalSend(t *testing.T) {
	s := newSim(t, probeSystem(2, record.FIFO, nil), record.StartEvent("a"))
	require.NoError(t, s.Apply(record.SendEvent("a", Ping{1})))
	require.NoError(t, s.Apply(record.Event{Kind: record.Send, From: "b", To: "a", Msg: &Pong{N: 2}, ID: 99, Cause: 5}))
	evs := s.Events()
	require.Len(t, evs, 3)
	assert.Equal(t, record.MsgID(1), evs[1].ID, "message IDs are assigned in send order")
	assert.Equal(t, record.MsgID(2), evs[2].ID, "a caller-supplied ID is ignored")
	assert.Equal(t, record.External, evs[2].From, "external sends always come from ext")
	assert.Equal(t, -1, evs[2].Cause)
	require.Len(t, s.InFlight(), 2)
	assert.Equal(t, 1, s.InFlight()[0].Cause, "the pending message points at the send event")
	require.NoError(t, s.Deliver(1))
	d := s.Events()[3]
	assert.Equal(t, record.Event{Kind: record.Deliver, ID: 1, From: record.External, To: "a", Msg: Ping{1}, Cause: 1}, d)
	assert.Equal(t, []string{"ext:Ping{N:1}"}, probeOf(t, s, "a").got)
}

func TestPartitionHeal(t *testing.T) {
	// a and b each send one Ping to every other actor when they get Tick.
	b := &behaviour{recv: func(p *probe, ctx *record.Context, _ record.ActorID, msg record.Message) {
		if _, ok := msg.(Tick); ok {
			for _, to := range []record.ActorID{"a", "b", "c"} {
				if to != p.id {
					ctx.Send(to, Ping{N: int(p.id[0])})
				}
			}
		}
	}}
	ab := []record.ActorID{"a"}
	bc := []record.ActorID{"b", "c"}
	tests := []struct {
		name    string
		before  []record.Event // applied before the sends are triggered
		after   []record.Event // applied after the sends, before delivery
		wantGot map[record.ActorID][]string
	}{
		{"no partition", nil, nil, map[record.ActorID][]string{
			"a": {"b:Ping{N:98}"}, "b": {"a:Ping{N:97}"}, "c": {"a:Ping{N:97}", "b:Ping{N:98}"}}},
		{"partition drops in-flight messages across the cut, both ways", nil,
			[]record.Event{record.PartitionEvent(ab, bc)},
			map[record.ActorID][]string{"a": nil, "b": nil, "c": {"b:Ping{N:98}"}}},
		{"partition drops new sends across the cut", []record.Event{record.PartitionEvent(ab, bc)}, nil,
			map[record.ActorID][]string{"a": nil, "b": nil, "c": {"b:Ping{N:98}"}}},
		{"partition with sides swapped", []record.Event{record.PartitionEvent(bc, ab)}, nil,
			map[record.ActorID][]string{"a": nil, "b": nil, "c": {"b:Ping{N:98}"}}},
		{"heal restores the links", []record.Event{record.PartitionEvent(ab, bc), record.HealEvent(ab, bc)}, nil,
			map[record.ActorID][]string{"a": {"b:Ping{N:98}"}, "b": {"a:Ping{N:97}"}, "c": {"a:Ping{N:97}", "b:Ping{N:98}"}}},
		{"heal does not bring dropped messages back", nil,
			[]record.Event{record.PartitionEvent(ab, bc), record.HealEvent(ab, bc)},
			map[record.ActorID][]string{"a": nil, "b": nil, "c": {"b:Ping{N:98}"}}},
		{"partial heal", []record.Event{record.PartitionEvent(ab, bc), record.HealEvent(ab, []record.ActorID{"c"})}, nil,
			map[record.ActorID][]string{"a": nil, "b": nil, "c": {"a:Ping{N:97}", "b:Ping{N:98}"}}},
		{"external messages are not cut", nil, []record.Event{record.PartitionEvent(ab, bc), record.SendEvent("a", Ping{1})},
			map[record.ActorID][]string{"a": {"ext:Ping{N:1}"}, "b": nil, "c": {"b:Ping{N:98}"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sys := probeSystem(3, record.FIFO, b)
			s := newSim(t, sys, startAll(sys)...)
			apply(t, s, tc.before...)
			for _, id := range []record.ActorID{"a", "b"} {
				apply(t, s, record.SendEvent(id, Tick{}))
				require.NoError(t, s.Deliver(s.Events()[len(s.Events())-1].ID))
			}
			apply(t, s, tc.after...)
			deliverAll(t, s, 20)
			for _, id := range sys.Members(nil) {
				var got []string
				for _, g := range probeOf(t, s, id).got {
					if !strings.HasPrefix(g, "ext:Tick") {
						got = append(got, g)
					}
				}
				assert.Equal(t, tc.wantGot[id], got, "actor %s", id)
			}
		})
	}
}

func TestPartitionedView(t *testing.T) {
	sys := probeSystem(3, record.FIFO, nil)
	s := newSim(t, sys, record.PartitionEvent([]record.ActorID{"a"}, []record.ActorID{"b"}))
	v := s.View()
	assert.True(t, v.Partitioned("a", "b"))
	assert.True(t, v.Partitioned("b", "a"))
	assert.False(t, v.Partitioned("a", "c"))
	apply(t, s, record.HealEvent([]record.ActorID{"b"}, []record.ActorID{"a"}))
	assert.False(t, v.Partitioned("a", "b"))
}

func TestEnabledSemantics(t *testing.T) {
	// On Ping, a sends three messages to b, two to c and arms a timer.
	b := &behaviour{recv: func(p *probe, ctx *record.Context, from record.ActorID, msg record.Message) {
		if p.id == "a" && from == record.External {
			ctx.Send("b", Ping{1})
			ctx.Send("b", Ping{2})
			ctx.SetTimer("t", Tick{"x"})
			ctx.Send("c", Ping{3})
			ctx.Send("b", Ping{4})
			ctx.Send("c", Ping{5})
		}
	}}
	tests := []struct {
		sem      record.Semantics
		enabled  []string
		deliver  record.MsgID // a message behind the head on a→b
		deliverE string       // error from delivering it, "" for none
	}{
		{record.FIFO, []string{"a→b:Ping{N:1}", "timer t@a:Tick{K:x}", "a→c:Ping{N:3}"}, 3, "queued behind #2 (FIFO a→b)"},
		{record.Unordered, []string{"a→b:Ping{N:1}", "a→b:Ping{N:2}", "timer t@a:Tick{K:x}", "a→c:Ping{N:3}", "a→b:Ping{N:4}", "a→c:Ping{N:5}"}, 3, ""},
	}
	for _, tc := range tests {
		t.Run(tc.sem.String(), func(t *testing.T) {
			sys := probeSystem(3, tc.sem, b)
			s := newSim(t, sys, append(startAll(sys), record.SendEvent("a", Ping{0}))...)
			require.NoError(t, s.Deliver(1))
			assert.Equal(t, tc.sem, s.Semantics())
			assert.Len(t, s.InFlight(), 6)
			buf := make([]record.Pending, 0, 1)
			buf = append(buf, record.Pending{ID: 999})
			en := s.Enabled(buf)
			assert.Equal(t, record.MsgID(999), en[0].ID, "Enabled appends to buf")
			assert.Equal(t, tc.enabled, pendingStrings(en[1:]))
			err := s.Deliver(tc.deliver)
			if tc.deliverE == "" {
				require.NoError(t, err)
				assert.Equal(t, []string{"a:Ping{N:2}"}, probeOf(t, s, "b").got)
			} else {
				var np *record.NotPendingError
				require.ErrorAs(t, err, &np)
				assert.Equal(t, tc.deliver, np.ID)
				assert.Contains(t, err.Error(), tc.deliverE)
				assert.Empty(t, probeOf(t, s, "b").got)
			}
		})
	}
}

func TestEnabledSkipsStoppedReceivers(t *testing.T) {
	for _, sem := range []record.Semantics{record.FIFO, record.Unordered} {
		t.Run(sem.String(), func(t *testing.T) {
			sys := probeSystem(2, sem, nil)
			s := newSim(t, sys, record.SendEvent("b", Ping{1}), record.StartEvent("a"), record.SendEvent("a", Ping{2}))
			assert.Equal(t, []string{"ext→a:Ping{N:2}"}, pendingStrings(s.Enabled(nil)))
			err := s.Deliver(1)
			var np *record.NotPendingError
			require.ErrorAs(t, err, &np)
			assert.Contains(t, err.Error(), "not running")
		})
	}
}

func TestDeliverErrors(t *testing.T) {
	sys := probeSystem(2, record.FIFO, nil)
	s := newSim(t, sys, append(startAll(sys), record.SendEvent("a", Ping{1}))...)
	var np *record.NotPendingError
	require.ErrorAs(t, s.Deliver(7), &np)
	assert.Equal(t, "message #7 is not pending", np.Error())
	require.NoError(t, s.Deliver(1))
	require.ErrorAs(t, s.Deliver(1), &np, "a message is delivered once")
	assert.Equal(t, 1, s.NumDeliveries())
}

func TestTimers(t *testing.T) {
	type op struct {
		set    bool
		key, k string
	}
	tests := []struct {
		name string
		ops  []op
		want []string // pending timers, in send order
	}{
		{"set", []op{{true, "x", "1"}}, []string{"timer x@a:Tick{K:1}"}},
		{"set same key replaces", []op{{true, "x", "1"}, {true, "x", "2"}}, []string{"timer x@a:Tick{K:2}"}},
		{"different keys coexist", []op{{true, "x", "1"}, {true, "y", "2"}}, []string{"timer x@a:Tick{K:1}", "timer y@a:Tick{K:2}"}},
		{"replace moves to the back", []op{{true, "x", "1"}, {true, "y", "2"}, {true, "x", "3"}},
			[]string{"timer y@a:Tick{K:2}", "timer x@a:Tick{K:3}"}},
		{"cancel", []op{{true, "x", "1"}, {true, "y", "2"}, {false, "x", ""}}, []string{"timer y@a:Tick{K:2}"}},
		{"cancel unknown is a no-op", []op{{true, "x", "1"}, {false, "zz", ""}}, []string{"timer x@a:Tick{K:1}"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var ops []op
			b := &behaviour{recv: func(p *probe, ctx *record.Context, _ record.ActorID, msg record.Message) {
				for _, o := range ops {
					if o.set {
						ctx.SetTimer(o.key, Tick{o.k})
					} else {
						ctx.CancelTimer(o.key)
					}
				}
			}}
			sys := probeSystem(2, record.FIFO, b)
			// b has a timer with the same key: timers are per actor.
			s := newSim(t, sys, startAll(sys)...)
			ops = []op{{true, "x", "b"}}
			apply(t, s, record.SendEvent("b", Ping{}))
			require.NoError(t, s.Deliver(1))
			ops = tc.ops
			apply(t, s, record.SendEvent("a", Ping{}))
			require.NoError(t, s.Deliver(s.Events()[len(s.Events())-1].ID))
			var got []string
			for _, p := range s.InFlight() {
				if p.To == "a" {
					got = append(got, pendingStrings([]record.Pending{p})...)
				}
			}
			assert.Equal(t, tc.want, got)
			assert.Equal(t, []string{"timer x@b:Tick{K:b}"}, pendingStrings(s.InFlight()[:1]), "b's timer is untouched")
			// Firing a timer records its key.
			last := s.InFlight()[len(s.InFlight())-1]
			require.NoError(t, s.Deliver(last.ID))
			e := s.Events()[len(s.Events())-1]
			assert.Equal(t, last.Timer, e.Timer)
			assert.Equal(t, record.ActorID("a"), e.From)
			assert.Equal(t, record.ActorID("a"), e.To)
			assert.Contains(t, e.String(), "timer "+last.Timer+" fires at a")
		})
	}
}

func TestTimersAreEnabledUnderFIFOBehindMessages(t *testing.T) {
	b := &behaviour{recv: func(p *probe, ctx *record.Context, from record.ActorID, msg record.Message) {
		if from == record.External {
			ctx.Send(p.id, Ping{1}) // a message to self: FIFO a→a
			ctx.SetTimer("t", Tick{})
			ctx.Send(p.id, Ping{2})
		}
	}}
	sys := probeSystem(1, record.FIFO, b)
	s := newSim(t, sys, record.StartEvent("a"), record.SendEvent("a", Ping{}))
	require.NoError(t, s.Deliver(1))
	assert.Equal(t, []string{"a→a:Ping{N:1}", "timer t@a:Tick{K:}"}, pendingStrings(s.Enabled(nil)))
}

func TestRandDeterminism(t *testing.T) {
	draws := func(seed uint64, evs ...record.Event) map[string][]uint64 {
		out := map[string][]uint64{}
		b := &behaviour{
			start: func(p *probe, ctx *record.Context) {
				out[string(p.id)] = append(out[string(p.id)], ctx.Rand().Uint64(), ctx.Rand().Uint64())
			},
			recv: func(p *probe, ctx *record.Context, _ record.ActorID, _ record.Message) {
				out[string(p.id)] = append(out[string(p.id)], ctx.Rand().Uint64())
			},
		}
		s, err := record.NewSim(probeSystem(2, record.FIFO, b), nil, seed)
		require.NoError(t, err)
		for _, e := range evs {
			require.NoError(t, s.Apply(e))
			deliverAll(t, s, 10)
		}
		return out
	}
	evs := []record.Event{record.StartEvent("a"), record.StartEvent("b"), record.SendEvent("a", Ping{}), record.RestartEvent("a"), record.SendEvent("a", Ping{})}
	one, again := draws(1, evs...), draws(1, evs...)
	require.Equal(t, one, again, "same seed, same draws")
	require.Len(t, one["a"], 6)
	assert.NotEqual(t, one["a"][:2], one["b"][:2], "actors draw from different streams")
	assert.NotEqual(t, one["a"][:2], one["a"][3:5], "a restarted actor draws from a new stream")
	// The stream of an incarnation depends only on the seed, the actor and
	// the incarnation, not on what other actors did.
	alone := draws(1, record.StartEvent("a"))
	assert.Equal(t, one["a"][:2], alone["a"])
	other := draws(2, evs...)
	assert.NotEqual(t, one["a"], other["a"], "another seed, other draws")
}

func TestHandlerPanicsBecomeViolations(t *testing.T) {
	type errBoom struct{ error }
	tests := []struct {
		name    string
		start   bool // panic in Start rather than Receive
		value   any
		wantMsg string
	}{
		{"string", false, "kaboom", "kaboom"},
		{"error", false, errors.New("bad state"), "bad state"},
		{"wrapped error", false, errBoom{fmt.Errorf("wrapped: %w", errors.New("inner"))}, "wrapped: inner"},
		{"runtime error", false, nil, "runtime error: index out of range"},
		{"in Start", true, "start failed", "start failed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := &behaviour{}
			hook := func(p *probe) {
				if tc.value == nil {
					var xs []int
					_ = xs[p.scratch+3] // a real runtime panic
				}
				panic(tc.value)
			}
			if tc.start {
				b.start = func(p *probe, _ *record.Context) {
					if p.id == "b" {
						hook(p)
					}
				}
			} else {
				b.recv = func(p *probe, _ *record.Context, _ record.ActorID, _ record.Message) { hook(p) }
			}
			sys := probeSystem(2, record.FIFO, b)
			s := newSim(t, sys, record.StartEvent("a"))
			var err error
			if tc.start {
				err = s.Apply(record.StartEvent("b"))
			} else {
				apply(t, s, record.SendEvent("a", Ping{}))
				err = s.Deliver(1)
			}
			require.NoError(t, err, "the event itself was executed")
			v := s.Check()
			require.NotNil(t, v)
			assert.Same(t, v, s.Halted())
			assert.Equal(t, len(s.Events())-1, v.Event)
			assert.True(t, strings.HasPrefix(v.Fingerprint, "panic: "+tc.wantMsg), v.Fingerprint)
			assert.NotContains(t, v.Fingerprint, "sim_test.go:", "the fingerprint has no file line")
			assert.Contains(t, v.Detail, "sim_test.go:", "the detail names the line")
			assert.Contains(t, v.Fingerprint, "record_test.", "the fingerprint names the function")
			assert.Contains(t, v.Detail, "panicked")
			// The run is halted: nothing more executes.
			assert.ErrorIs(t, s.Apply(record.SendEvent("a", Ping{})), record.ErrHalted)
			assert.ErrorIs(t, s.Deliver(1), record.ErrHalted)
		})
	}
}

func TestPanicFingerprintIsStable(t *testing.T) {
	// The same panic at the same place gives the same fingerprint, whatever
	// the message that triggered it: it is the "same bug" key.
	fp := func(n int) string {
		sys := probeSystem(1, record.FIFO, nil)
		s := newSim(t, sys, record.StartEvent("a"), record.SendEvent("a", Ping{n}), record.SendEvent("a", Boom{"boom"}))
		deliverAll(t, s, 10)
		require.NotNil(t, s.Halted())
		return s.Check().Fingerprint
	}
	assert.Equal(t, fp(1), fp(2))
	assert.Equal(t, "panic: boom @ record_test.(*probe).Receive", fp(1))
}

func TestSendToUnknownActorIsAViolation(t *testing.T) {
	b := &behaviour{recv: func(_ *probe, ctx *record.Context, _ record.ActorID, _ record.Message) { ctx.Send("nobody", Ping{}) }}
	s := newSim(t, probeSystem(1, record.FIFO, b), record.StartEvent("a"), record.SendEvent("a", Ping{}))
	require.NoError(t, s.Deliver(1))
	require.NotNil(t, s.Halted())
	assert.Contains(t, s.Halted().Fingerprint, `panic: send to unknown actor "nobody"`)
}

func TestInvariant(t *testing.T) {
	tests := []struct {
		name    string
		inv     func(v record.View) *record.Violation
		wantFP  string
		wantNil bool
	}{
		{"none", nil, "", true},
		{"holds", func(record.View) *record.Violation { return nil }, "", true},
		{"broken", func(v record.View) *record.Violation {
			if len(v.Actor("a").(*probe).got) > 0 {
				return &record.Violation{Fingerprint: "a-got-mail", Detail: "a received something"}
			}
			return nil
		}, "a-got-mail", false},
		{"panics", func(v record.View) *record.Violation {
			_ = v.Actor("b").(*probe) // b is not running: nil interface conversion panics
			return nil
		}, "invariant panic: interface conversion", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sys := probeSystem(2, record.FIFO, nil)
			sys.Invariant = tc.inv
			s := newSim(t, sys, record.StartEvent("a"), record.SendEvent("a", Ping{}))
			require.NoError(t, s.Deliver(1))
			v := s.Check()
			if tc.wantNil {
				assert.Nil(t, v)
				return
			}
			require.NotNil(t, v)
			assert.True(t, strings.HasPrefix(v.Fingerprint, tc.wantFP), v.Fingerprint)
			assert.Equal(t, 2, v.Event, "the violation names the event after which it was detected")
			assert.Nil(t, s.Halted(), "a broken invariant does not halt the run")
		})
	}
}

func TestViewInFlightCountsMessagesNotTimers(t *testing.T) {
	b := &behaviour{recv: func(p *probe, ctx *record.Context, _ record.ActorID, _ record.Message) {
		ctx.SetTimer("t", Tick{})
		ctx.Send("b", Ping{})
	}}
	sys := probeSystem(2, record.FIFO, b)
	s := newSim(t, sys, append(startAll(sys), record.SendEvent("a", Ping{}))...)
	assert.Equal(t, 1, s.View().NumInFlight())
	require.NoError(t, s.Deliver(1))
	assert.Equal(t, 1, s.View().NumInFlight(), "one message to b, one timer")
	assert.Len(t, s.InFlight(), 2)
	assert.Equal(t, sys.Members(nil), s.View().Members())
	assert.Equal(t, "false", s.View().Options()["flag"], "options are resolved")
}

func TestCausalLinks(t *testing.T) {
	sys := probeSystem(3, record.FIFO, &behaviour{recv: forward})
	s := newSim(t, sys, append(startAll(sys), record.SendEvent("a", Ping{2}))...)
	deliverAll(t, s, 10)
	evs := s.Events()
	require.Len(t, evs, 7)
	// 3: send ext→a, 4: deliver to a (cause 3), 5: a→b (cause 4), 6: b→c (cause 5)
	for i, want := range []int{-1, -1, -1, -1, 3, 4, 5} {
		assert.Equal(t, want, evs[i].Cause, "event %d", i)
	}
	assert.Equal(t, record.MsgID(1), evs[3].ID)
	assert.Equal(t, []record.MsgID{1, 2, 3}, []record.MsgID{evs[4].ID, evs[5].ID, evs[6].ID})
}

func TestTraceCounts(t *testing.T) {
	sys := probeSystem(3, record.FIFO, &behaviour{recv: forward})
	s := newSim(t, sys, append(startAll(sys), record.SendEvent("a", Ping{4}), record.KillEvent("c"))...)
	deliverAll(t, s, 10)
	v := &record.Violation{Fingerprint: "x", Detail: "y", Event: 3}
	tr := s.Trace(v)
	h := tr.Header
	assert.Equal(t, record.FormatVersion, h.Format)
	assert.Equal(t, "probe", h.System)
	assert.Equal(t, uint64(1), h.Seed)
	assert.Equal(t, "fifo", h.Network)
	assert.Same(t, v, h.Violation)
	assert.Equal(t, []record.Option{{Name: "flag", Value: "false"}, {Name: "size", Value: "3"}}, h.Options)
	assert.Equal(t, s.NumDeliveries(), h.Deliveries)
	assert.Equal(t, s.NumExternals(), h.Externals)
	assert.Equal(t, 5, h.Externals)
	assert.Equal(t, 2, h.Deliveries, "a→b, then b→c is dropped because c is down")
	assert.Equal(t, 7, h.EventCount)
	assert.Len(t, tr.Externals(), 5)
	before := h
	tr.Recount()
	assert.Equal(t, before, tr.Header, "Recount agrees with the Sim's counts")
}

func TestEventString(t *testing.T) {
	tests := []struct {
		e    record.Event
		want string
	}{
		{record.Event{Kind: record.Deliver, ID: 3, From: "a", To: "b", Msg: Ping{1}}, "deliver #3 a→b Ping{N:1}"},
		{record.Event{Kind: record.Deliver, ID: 3, From: "a", To: "a", Msg: Tick{"x"}, Timer: "t"}, "timer t fires at a: Tick{K:x}"},
		{record.StartEvent("a"), "start a"},
		{record.KillEvent("a"), "kill a"},
		{record.RestartEvent("a"), "restart a"},
		{record.Event{Kind: record.Send, ID: 2, To: "b", Msg: &Pong{N: 1, Note: "hi"}}, "send #2 ext→b Pong{N:1 Note:hi}"},
		{record.PartitionEvent([]record.ActorID{"a", "b"}, []record.ActorID{"c"}), "partition {a,b} | {c}"},
		{record.HealEvent([]record.ActorID{"a"}, []record.ActorID{"c"}), "heal {a} | {c}"},
		{record.WaitQuiescenceEvent(3), "wait for quiescence"},
		{record.WaitConditionEvent("leader", 3), "wait until leader"},
		{record.Event{Kind: 77}, "kind(77)"},
	}
	for _, tc := range tests {
		t.Run(tc.want, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.e.String())
			assert.Equal(t, tc.e.Kind != record.Deliver, tc.e.Kind.IsExternal())
		})
	}
	assert.Equal(t, "unordered", record.Unordered.String())
	assert.Equal(t, "<nil>", record.TypeName(nil))
	assert.Equal(t, "*Pong", record.TypeName(&Pong{}))
}

func TestSystemHelpers(t *testing.T) {
	sys := probeSystem(2, record.FIFO, nil)
	assert.Equal(t, []string{"flag"}, sys.Bugs())
	o, err := sys.Resolve(record.Options{"size": "5"})
	require.NoError(t, err)
	assert.Equal(t, 5, o.Int("size"))
	assert.False(t, o.Bool("flag"))
	assert.Equal(t, "flag=false,size=5", o.String())

	types, err := sys.Types()
	require.NoError(t, err)
	typ, ok := types.Lookup("*Pong")
	require.True(t, ok)
	assert.Equal(t, "*record_test.Pong", typ.String())
	assert.True(t, types.Registered(Ping{}))
	assert.False(t, types.Registered(&Ping{}), "*Ping is another type")

	bad := *sys
	bad.Messages = []record.Message{nil}
	_, err = bad.Types()
	assert.ErrorContains(t, err, "nil message")
	_, err = record.NewSim(&bad, nil, 1)
	assert.ErrorContains(t, err, "nil message", "a run refuses the registry a trace reader refuses")

	cat := record.NewCatalog(&record.System{Name: "zeta"}, sys)
	assert.Equal(t, "probe", cat.Systems()[0].Name, "the catalog is sorted by name")
	_, err = cat.Lookup("nope")
	assert.ErrorContains(t, err, `unknown system "nope" (known: probe, zeta)`)
	got, err := cat.Lookup("probe")
	require.NoError(t, err)
	assert.Same(t, sys, got)
	var nv *record.Violation
	assert.Equal(t, "no violation", nv.String())
}

func TestPendingLookup(t *testing.T) {
	sys := probeSystem(2, record.FIFO, &behaviour{recv: func(p *probe, ctx *record.Context, _ record.ActorID, _ record.Message) {
		for i := 0; p.id == "a" && i < 20; i++ {
			ctx.Send("b", Ping{i})
		}
	}})
	s := newSim(t, sys, append(startAll(sys), record.SendEvent("a", Ping{}))...)
	s.Reserve(100)
	require.NoError(t, s.Deliver(1))
	// Deliver the first three a→b messages, then look everything up.
	for _, id := range []record.MsgID{2, 3, 4} {
		require.NoError(t, s.Deliver(id))
	}
	for id := record.MsgID(0); id < 25; id++ {
		p, ok := s.Pending(id)
		want := id >= 5 && id <= 21
		assert.Equal(t, want, ok, "#%d", id)
		if ok {
			assert.Equal(t, id, p.ID)
			assert.Equal(t, Ping{int(id) - 2}, p.Msg)
		}
	}
	assert.Len(t, s.InFlight(), 17)
	for i, p := range s.InFlight() {
		assert.Equal(t, record.MsgID(i+5), p.ID, "in send order")
	}
}

func TestManyDeliveriesKeepOrder(t *testing.T) {
	// Deliveries from the middle of a long queue (unordered) leave the
	// rest in send order, and every message is delivered exactly once.
	sys := probeSystem(2, record.Unordered, nil)
	s := newSim(t, sys, startAll(sys)...)
	for i := 0; i < 100; i++ {
		apply(t, s, record.SendEvent(sys.Members(nil)[i%2], Ping{i}))
	}
	order := []record.MsgID{50, 1, 99, 100, 2, 3, 60, 61, 62, 75}
	for _, id := range order {
		require.NoError(t, s.Deliver(id))
		_, ok := s.Pending(id)
		assert.False(t, ok)
	}
	rest := s.Enabled(nil)
	require.Len(t, rest, 90)
	for i := 1; i < len(rest); i++ {
		assert.Less(t, rest[i-1].ID, rest[i].ID)
	}
	for _, p := range rest {
		require.NoError(t, s.Deliver(p.ID))
	}
	assert.Empty(t, s.InFlight())
	assert.Empty(t, s.Enabled(nil))
	assert.Equal(t, 100, s.NumDeliveries())
	assert.Equal(t, 0, s.View().NumInFlight())
}

func TestSimAccessors(t *testing.T) {
	var self record.ActorID
	sys := probeSystem(2, record.Unordered, &behaviour{recv: func(_ *probe, ctx *record.Context, _ record.ActorID, _ record.Message) {
		self = ctx.Self()
	}})
	s, err := record.NewSim(sys, record.Options{"size": "7"}, 42)
	require.NoError(t, err)
	assert.Same(t, sys, s.System())
	assert.Equal(t, record.Options{"flag": "false", "size": "7"}, s.Options())
	assert.Equal(t, uint64(42), s.Seed())
	assert.Equal(t, []record.ActorID{"a", "b"}, s.Members())
	assert.Equal(t, record.Unordered, s.Semantics())
	assert.Nil(t, s.View().Actor("nobody"))
	apply(t, s, record.StartEvent("b"), record.SendEvent("b", Ping{}))
	require.NoError(t, s.Deliver(1))
	assert.Equal(t, record.ActorID("b"), self)
	assert.Equal(t, "Pong{N:1 Note:x}", record.FormatMessage(&Pong{N: 1, Note: "x"}))
}

// TestSlotsNameTheLink checks that a pending message's slots are its
// sender's and receiver's Slot, External's after the members, and that a
// delivered message's hole has a negative receiver slot.
func TestSlotsNameTheLink(t *testing.T) {
	s := newSim(t, probeSystem(3, record.FIFO, nil), record.StartEvent("a"), record.StartEvent("c"))
	require.NoError(t, s.Apply(record.SendEvent("c", Ping{1})))
	require.NoError(t, s.Apply(record.SendEvent("a", Ping{2})))
	assert.Equal(t, []int32{0, 1, 2, 3, -1}, []int32{s.Slot("a"), s.Slot("b"), s.Slot("c"), s.Slot(record.External), s.Slot("nobody")})
	pend := s.InFlightHoles()
	require.Len(t, pend, 2)
	from, to := pend[0].Slots()
	assert.Equal(t, [2]int32{3, 2}, [2]int32{from, to})
	require.NoError(t, s.Deliver(pend[0].ID))
	pend = s.InFlightHoles()
	require.True(t, pend[0].Removed())
	_, to = pend[0].Slots()
	assert.Negative(t, to)
	from, to = pend[1].Slots()
	assert.Equal(t, [2]int32{3, 0}, [2]int32{from, to})
}

// TestNextOnLink checks that OnLink and NextOnLink walk one link's ordinary messages,
// or one actor's timers, in send order, skipping the other links, other
// actors' timers and holes, and finds nothing for an actor not in the
// system.
func TestNextOnLink(t *testing.T) {
	b := &behaviour{start: func(p *probe, ctx *record.Context) {
		ctx.SetTimer("t1", Tick{"1"})
		ctx.SetTimer("t2", Tick{"2"})
	}}
	s := newSim(t, probeSystem(3, record.FIFO, b), record.StartEvent("a"), record.StartEvent("b"))
	apply(t, s, record.SendEvent("a", Ping{1}), record.SendEvent("b", Ping{2}), record.SendEvent("a", Ping{3}))
	walk := func(from, to int32, timer bool) []string {
		var got []string
		pend := s.InFlightHoles()
		for i := s.OnLink(from, to, timer); i >= 0; i = s.NextOnLink(i) {
			p := &pend[i]
			require.False(t, p.Removed())
			got = append(got, p.Timer+record.FormatMessage(p.Msg))
		}
		return got
	}
	ext, a, bb := s.Slot(record.External), s.Slot("a"), s.Slot("b")
	assert.Equal(t, []string{"Ping{N:1}", "Ping{N:3}"}, walk(ext, a, false))
	assert.Equal(t, []string{"Ping{N:2}"}, walk(ext, bb, false))
	assert.Equal(t, []string{"t1Tick{K:1}", "t2Tick{K:2}"}, walk(a, a, true))
	assert.Empty(t, walk(a, a, false), "a timer is not on the ordinary link")
	assert.Empty(t, walk(ext, s.Slot("c"), false))
	assert.Empty(t, walk(ext, s.Slot("nobody"), false))
	assert.Empty(t, walk(s.Slot("nobody"), a, true))

	pend := s.InFlightHoles()
	first := s.OnLink(ext, a, false)
	require.NoError(t, s.Deliver(pend[first].ID))
	assert.Equal(t, []string{"Ping{N:3}"}, walk(ext, a, false), "a delivered message leaves a hole that is skipped")
}
