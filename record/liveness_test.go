package record_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/minimize"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
)

// The beacon system: actor a fires a "beat" timer forever and, unless the
// mute bug is on, sends Greeting to b at every beat. Its bounded-liveness
// property: b hears a Greeting within N deliveries of the last fault, unless
// a or b is down or the link between them is cut (then no progress can
// be asked for).

// Beat is a's timer.
type Beat struct{}

// Greeting is a's message to b.
type Greeting struct{}

type beacon struct {
	id    record.ActorID
	mute  bool
	heard bool // volatile: a restart forgets it
}

func (b *beacon) Start(ctx *record.Context) {
	if b.id == "a" {
		ctx.SetTimer("beat", Beat{})
	}
}

func (b *beacon) Receive(ctx *record.Context, _ record.ActorID, msg record.Message) {
	switch msg.(type) {
	case Beat:
		ctx.SetTimer("beat", Beat{})
		if !b.mute {
			ctx.Send("b", Greeting{})
		}
	case Greeting:
		b.heard = true
	}
}

func beaconSystem() *record.System {
	ids := []record.ActorID{"a", "b"}
	return &record.System{
		Name: "beacon",
		Options: []record.OptionSpec{
			{Name: "mute", Default: "false", Bug: true, Usage: "a never says hello"},
			{Name: "within", Default: "5", Min: 0, Max: 1000, Usage: "the liveness bound (0: off)"},
		},
		Members: func(record.Options) []record.ActorID { return ids },
		New: func(id record.ActorID, o record.Options) record.Actor {
			return &beacon{id: id, mute: o.Bool("mute")}
		},
		Messages: []record.Message{Beat{}, Greeting{}},
		Setup: func(record.Options) []record.Event {
			return []record.Event{record.StartEvent("a"), record.StartEvent("b")}
		},
		Externals: []record.Generator{
			{Name: "restart-b", Weight: 1, Make: func(*rand.Rand, record.View) (record.Event, bool) {
				return record.RestartEvent("b"), true
			}},
			{Name: "partition", Weight: 1, Make: func(*rand.Rand, record.View) (record.Event, bool) {
				return record.PartitionEvent([]record.ActorID{"a"}, []record.ActorID{"b"}), true
			}},
			{Name: "heal", Weight: 1, Make: func(*rand.Rand, record.View) (record.Event, bool) {
				return record.HealEvent([]record.ActorID{"a"}, []record.ActorID{"b"}), true
			}},
		},
		Liveness: &record.Liveness{
			Name:   "hello",
			Doc:    "hello heard at b",
			Within: func(o record.Options) int { return o.Int("within") },
			Holds: func(v record.View) bool {
				b, ok := v.Actor("b").(*beacon)
				return !v.Running("a") || !ok || v.Partitioned("a", "b") || b.heard
			},
		},
	}
}

// beats delivers n of a's beat timers (and nothing else).
func beats(t *testing.T, s *record.Sim, n int) {
	t.Helper()
	for range n {
		deliverOne(t, s, Beat{})
	}
}

// deliverOne delivers the first enabled message equal to m.
func deliverOne(t *testing.T, s *record.Sim, m record.Message) {
	t.Helper()
	for _, p := range s.Enabled(nil) {
		if p.Msg == m {
			require.NoError(t, s.Deliver(p.ID))
			return
		}
	}
	t.Fatalf("no %T enabled", m)
}

func TestLivenessExpiresAfterWithinDeliveries(t *testing.T) {
	s, err := record.NewSim(beaconSystem(), record.Options{"mute": "true"}, 1)
	require.NoError(t, err)
	apply(t, s, record.StartEvent("a"), record.StartEvent("b"))
	beats(t, s, 4)
	assert.Nil(t, s.Check(), "4 deliveries after the last fault: the window of 5 is still open")
	within, since, held := s.LivenessWindow()
	assert.Equal(t, []any{5, 4, false}, []any{within, since, held})

	beats(t, s, 1)
	v := s.Check()
	require.NotNil(t, v)
	assert.Equal(t, "Liveness(hello)", v.Fingerprint)
	assert.Equal(t, "no hello heard at b within 5 deliveries after the last fault (event 1)", v.Detail)
	assert.Equal(t, 6, v.Event, "the delivery that closed the window")
	assert.True(t, record.IsLiveness(v))

	// Kept: a later fault does not undo it, and the detail stays the same.
	apply(t, s, record.RestartEvent("b"))
	beats(t, s, 2)
	assert.Equal(t, v, s.Check())
}

func TestLivenessWindowReopensAtEveryFault(t *testing.T) {
	s, err := record.NewSim(beaconSystem(), record.Options{"mute": "true"}, 1)
	require.NoError(t, err)
	apply(t, s, record.StartEvent("a"), record.StartEvent("b"))
	beats(t, s, 4)
	apply(t, s, record.RestartEvent("b")) // event 6
	beats(t, s, 4)
	assert.Nil(t, s.Check(), "8 deliveries in all, 4 since the last fault")
	beats(t, s, 1)
	v := s.Check()
	require.NotNil(t, v)
	assert.Equal(t, "no hello heard at b within 5 deliveries after the last fault (event 6)", v.Detail)
}

func TestLivenessHeldClosesTheWindow(t *testing.T) {
	s, err := record.NewSim(beaconSystem(), nil, 1)
	require.NoError(t, err)
	apply(t, s, record.StartEvent("a"), record.StartEvent("b"))
	beats(t, s, 1)
	deliverOne(t, s, Greeting{})
	_, _, held := s.LivenessWindow()
	assert.True(t, held)
	beats(t, s, 50) // greetings pile up undelivered: progress was made once
	assert.Nil(t, s.Check())

	// A restart forgets the hello: the new window needs another.
	apply(t, s, record.RestartEvent("b"))
	_, since, held := s.LivenessWindow()
	assert.Equal(t, []any{0, false}, []any{since, held})
	beats(t, s, 5)
	assert.NotNil(t, s.Check(), "only beats: the greetings sent are never delivered")
}

func TestLivenessVacuousWhileNoProgressCanBeAskedFor(t *testing.T) {
	s, err := record.NewSim(beaconSystem(), nil, 1)
	require.NoError(t, err)
	apply(t, s, record.StartEvent("a"), record.StartEvent("b"),
		record.PartitionEvent([]record.ActorID{"a"}, []record.ActorID{"b"}))
	beats(t, s, 20)
	assert.Nil(t, s.Check(), "cut off: Holds is true, the window closed at the partition")
}

func TestLivenessOffWithinZeroOrNoProperty(t *testing.T) {
	for name, sys := range map[string]*record.System{"within=0": beaconSystem(), "no property": beaconSystem()} {
		opts := record.Options{"mute": "true"}
		if name == "within=0" {
			opts["within"] = "0"
		} else {
			sys.Liveness = nil
		}
		s, err := record.NewSim(sys, opts, 1)
		require.NoError(t, err)
		apply(t, s, record.StartEvent("a"), record.StartEvent("b"))
		beats(t, s, 20)
		assert.Nil(t, s.Check(), name)
		within, _, _ := s.LivenessWindow()
		assert.Zero(t, within, name)
	}
}

func TestLivenessForkKeepsTheWindow(t *testing.T) {
	s, err := record.NewSim(beaconSystem(), record.Options{"mute": "true"}, 1)
	require.NoError(t, err)
	apply(t, s, record.StartEvent("a"), record.StartEvent("b"))
	beats(t, s, 4)
	f := s.Fork()
	beats(t, f, 1)
	assert.NotNil(t, f.Check(), "the fork closes the window at its 5th delivery")
	assert.Nil(t, s.Check(), "the original is untouched")
	beats(t, s, 1)
	assert.Equal(t, f.Check(), s.Check())
}

func TestLivenessHoldsPanicIsAViolation(t *testing.T) {
	sys := beaconSystem()
	sys.Liveness.Holds = func(v record.View) bool {
		if v.Running("b") {
			panic("boom")
		}
		return false
	}
	s, err := record.NewSim(sys, nil, 1)
	require.NoError(t, err)
	apply(t, s, record.StartEvent("a"), record.StartEvent("b"))
	v := s.Check()
	require.NotNil(t, v)
	assert.Equal(t, "invariant panic: boom", v.Fingerprint)
	assert.Equal(t, "the liveness property hello itself panicked: boom", v.Detail)
}

// TestLivenessFoundReplayedMinimized is the property end to end: fuzzing
// finds the muted beacon's violation, the trace replays to the same
// fingerprint, and minimization cuts it to the two starts and the five
// beats the bound needs; the correct beacon survives the same fuzzing.
func TestLivenessFoundReplayedMinimized(t *testing.T) {
	ctx := context.Background()
	sys := beaconSystem()
	cfg := record.SearchConfig{FuzzConfig: record.FuzzConfig{Seed: 1, MaxSteps: 200, MaxExternals: 10}, Runs: 200}

	clean, runs, err := record.Search(ctx, sys, record.Options{"within": "20"}, cfg)
	require.NoError(t, err)
	assert.Nil(t, clean, "a correct beacon says hello within 20 deliveries")
	assert.Equal(t, 200, runs)

	tr, _, err := record.Search(ctx, sys, record.Options{"mute": "true"}, cfg)
	require.NoError(t, err)
	require.NotNil(t, tr)
	assert.Equal(t, "Liveness(hello)", tr.Header.Violation.Fingerprint)

	res, err := replay.Run(ctx, sys, tr)
	require.NoError(t, err)
	assert.True(t, res.Reproduced)

	min, err := minimize.Run(ctx, sys, tr, minimize.Config{Workers: 1})
	require.NoError(t, err)
	assert.Equal(t, "Liveness(hello)", min.Trace.Header.Violation.Fingerprint)
	var kinds []string
	for _, e := range min.Trace.Events {
		kinds = append(kinds, e.Kind.String())
	}
	assert.Equal(t, []string{"start", "start", "deliver", "deliver", "deliver", "deliver", "deliver"}, kinds)
}
