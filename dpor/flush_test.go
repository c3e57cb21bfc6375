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
		c, err := dpor.New(dpor.Config{System: sys, Target: "first-is-2", Mode: dpor.STS})
		require.NoError(t, err)
		res, err := c.Check(context.Background(), p)
		require.NoError(t, err)
		if flushes == 0 {
			require.Nil(t, res.Trace, "the Val waits behind the Note")
			continue
		}
		require.NotNil(t, res.Trace)
		var got []string
		for _, e := range res.Trace.Events {
			if e.Kind == record.Deliver {
				got = append(got, record.FormatMessage(e.Msg))
			}
		}
		require.Equal(t, []string{"Note{}", "Val{V:2}"}, got, "one flush delivered, one skipped")
		rep, err := replay.Run(context.Background(), sys, res.Trace)
		require.NoError(t, err)
		require.True(t, rep.Reproduced)
	}
}
