package dpor_test

import (
	"context"
	"testing"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/record"
	"github.com/demi-project/demi/replay"
	"github.com/stretchr/testify/require"
)

// Note is a message of another type than Val.
type Note struct{}

// queuer a sends c a Note, then a Val{2}, on one FIFO link; c keeps the
// first Val it receives.
type queuer struct {
	id    record.ActorID
	first int
}

func (q *queuer) Start(ctx *record.Context) {
	if q.id == "a" {
		ctx.Send("c", Note{})
		ctx.Send("c", Val{V: 2})
	}
}

func (q *queuer) Receive(_ *record.Context, _ record.ActorID, msg record.Message) {
	if v, ok := msg.(Val); ok && q.first == 0 {
		q.first = v.V
	}
}

func queueSystem() *record.System {
	return &record.System{
		Name:     "queue",
		Members:  func(record.Options) []record.ActorID { return []record.ActorID{"a", "c"} },
		New:      func(id record.ActorID, _ record.Options) record.Actor { return &queuer{id: id} },
		Messages: []record.Message{Val{}, Note{}},
		Invariant: func(v record.View) *record.Violation {
			if c, ok := v.Actor("c").(*queuer); ok && c.first == 2 {
				return &record.Violation{Fingerprint: "first-is-2"}
			}
			return nil
		},
	}
}

// TestFlushDeliversWhatIsQueuedAhead: the step wants Val{2}, which waits
// behind a Note on its FIFO link. Without flush steps the step is
// skipped (its message is not deliverable); with them the first flush
// step delivers the Note, the second finds the Val at the head and is
// skipped, and the step delivers the Val.
func TestFlushDeliversWhatIsQueuedAhead(t *testing.T) {
	sys := queueSystem()
	fp := fingerprint.New(nil)
	want := record.Event{Kind: record.Deliver, From: "a", To: "c", Msg: Val{V: 2}}
	st := dpor.Step{Event: want, FP: fp.Of(want.Msg)}
	for _, flushes := range []int{0, 2} {
		p := dpor.Plan{{Event: record.StartEvent("c")}, {Event: record.StartEvent("a")}}
		fl := st
		fl.Flush = true
		for range flushes {
			p = append(p, fl)
		}
		p = append(p, st)
		tr := checkSTS(t, sys, "first-is-2", p)
		if flushes == 0 {
			require.Nil(t, tr, "the Val waits behind the Note")
			continue
		}
		require.NotNil(t, tr)
		require.Equal(t, []string{"Note{}", "Val{V:2}"}, delivered(tr), "one flush delivered, one skipped")
		rep, err := replay.Run(context.Background(), sys, tr)
		require.NoError(t, err)
		require.True(t, rep.Reproduced)
	}
}

// pair sends c Val{1} then Val{2} on one FIFO link; c keeps the last Val it
// receives.
type pair struct {
	id   record.ActorID
	last int
}

func (p *pair) Start(ctx *record.Context) {
	if p.id == "a" {
		ctx.Send("c", Val{V: 1})
		ctx.Send("c", Val{V: 2})
	}
}

func (p *pair) Receive(_ *record.Context, _ record.ActorID, msg record.Message) {
	if v, ok := msg.(Val); ok {
		p.last = v.V
	}
}

// TestFlushDeliversAnOlderMessageOfTheStepsType: the step wants Val{2},
// which waits behind a Val{1} on its FIFO link. The step alone is skipped
// (not a wildcard, its own message is not at the head); a flush step
// before it delivers the Val{1}, since the step's own message waits
// behind it, and the step then delivers the Val{2}.
func TestFlushDeliversAnOlderMessageOfTheStepsType(t *testing.T) {
	sys := &record.System{
		Name:     "pair",
		Members:  func(record.Options) []record.ActorID { return []record.ActorID{"a", "c"} },
		New:      func(id record.ActorID, _ record.Options) record.Actor { return &pair{id: id} },
		Messages: []record.Message{Val{}},
		Invariant: func(v record.View) *record.Violation {
			if c, ok := v.Actor("c").(*pair); ok && c.last == 2 {
				return &record.Violation{Fingerprint: "last-is-2"}
			}
			return nil
		},
	}
	fp := fingerprint.New(nil)
	want := record.Event{Kind: record.Deliver, From: "a", To: "c", Msg: Val{V: 2}}
	st := dpor.Step{Event: want, FP: fp.Of(want.Msg)}
	fl := st
	fl.Flush = true
	for _, flush := range []bool{false, true} {
		p := dpor.Plan{{Event: record.StartEvent("c")}, {Event: record.StartEvent("a")}}
		if flush {
			p = append(p, fl)
		}
		p = append(p, st)
		tr := checkSTS(t, sys, "last-is-2", p)
		if !flush {
			require.Nil(t, tr, "the Val{2} waits behind the Val{1}")
			continue
		}
		require.Equal(t, []string{"Val{V:1}", "Val{V:2}"}, delivered(tr))
	}
}

// checkSTS checks plan p on sys, one STSSched schedule, for the violation
// target: the trace found, or nil.
func checkSTS(t *testing.T, sys *record.System, target string, p dpor.Plan) *record.Trace {
	t.Helper()
	c, err := dpor.New(dpor.Config{System: sys, Target: target, Mode: dpor.STS})
	require.NoError(t, err)
	res, err := c.Check(context.Background(), p)
	require.NoError(t, err)
	return res.Trace
}

// delivered lists the messages tr delivers, in order.
func delivered(tr *record.Trace) []string {
	var out []string
	for _, e := range tr.Events {
		if e.Kind == record.Deliver {
			out = append(out, record.FormatMessage(e.Msg))
		}
	}
	return out
}
