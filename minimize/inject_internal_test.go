package minimize

import (
	"testing"

	"github.com/demi-project/demi/dpor"
	"github.com/demi-project/demi/fingerprint"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
)

type injPut struct{ K string }

// injectEvents is a trace of two members: a timer round, a client write
// and a second timer round.
func injectEvents() []record.Event {
	return []record.Event{
		record.StartEvent("a"), record.StartEvent("b"),
		{Kind: record.Deliver, From: "a", To: "a", Timer: "t", Msg: injPut{"t"}}, // 2: boundary
		{Kind: record.Deliver, From: "a", To: "b", Msg: injPut{"m1"}},
		{Kind: record.Deliver, From: "b", To: "a", Msg: injPut{"m2"}},
		record.SendEvent("a", injPut{"k"}), // 5: boundary
		{Kind: record.Deliver, From: record.External, To: "a", Msg: injPut{"k"}},
		{Kind: record.Deliver, From: "a", To: "b", Msg: injPut{"m3"}},
		{Kind: record.Deliver, From: "b", To: "b", Timer: "t", Msg: injPut{"t"}}, // 8: boundary
		{Kind: record.Deliver, From: "b", To: "a", Msg: injPut{"m4"}},
	}
}

func TestInjectCutsAreWhereStretchesBegin(t *testing.T) {
	assert.Equal(t, []int{2, 5, 8}, injectCuts(injectEvents()))
}

// TestInjectMovesTradeAStretchForAnOffer checks the moves' order (cuts
// from the start, longer stretches first; a stretch that leaves out no
// more than the offer adds is no trade) and where each offer goes: at
// the cut, at the end of the stretch (not the end of the trace), and,
// for a stretch from the first cut, at every boundary after it.
func TestInjectMovesTradeAStretchForAnOffer(t *testing.T) {
	ev := injectEvents()
	w := record.SendEvent("b", injPut{"w"})
	offers := map[int][]record.Event{2: {w}, 5: {w}, 8: {w}}
	type mv struct{ cut, until, at int }
	var got []mv
	for _, m := range injectMoves(ev, offers, 100) {
		got = append(got, mv{m.cut, m.until, m.at})
	}
	assert.Equal(t, []mv{
		{2, 10, 2},           // everything after the cut left out
		{2, 8, 2}, {2, 8, 8}, // up to the second timer
		{2, 5, 2}, {2, 5, 5}, {2, 5, 8}, // the prefix up to the write: later boundaries too
		{5, 10, 5}, // from the client write on: three deliveries between actors
		// not the second timer round: its two deliveries (a timer firing
		// is one) are no more than a write and its delivery add
	}, got)
	assert.Len(t, injectMoves(ev, map[int][]record.Event{2: {w, record.RestartEvent("a")}}, 100), 2*3,
		"two offers at the first cut, none elsewhere: the three stretches from it")
}

// TestInjectPlan checks a move's plan: the stretch's deliveries between
// actors left out, the client message's delivery kept, the offer and its
// delivery at the cut, every delivery after the cut a wildcard.
func TestInjectPlan(t *testing.T) {
	ev := injectEvents()
	fp := fingerprint.New(nil)
	bp := dpor.FromEvents(fp, ev)
	w := record.SendEvent("b", injPut{"w"})
	p := injectMove{cut: 2, until: 8, at: 2, offer: w}.plan(fp, bp)
	var kinds []string
	for _, st := range p {
		s := st.Event.Kind.String() + " " + string(st.Event.To) + string(st.Event.Actor)
		if st.Wildcard {
			s += " *"
		}
		kinds = append(kinds, s)
	}
	assert.Equal(t, []string{"start a", "start b", "send b", "deliver b", "send a", "deliver a *", "deliver b *", "deliver a *"}, kinds)
	assert.Equal(t, fp.Of(w.Msg), p[3].FP, "the offer's delivery is matched by its fingerprint")
	r := injectMove{cut: 2, until: 8, at: 8, offer: record.RestartEvent("b")}.plan(fp, bp)
	assert.Equal(t, record.Restart, r[4].Event.Kind, "a restart goes where the stretch ends")
	assert.Len(t, r, len(ev)-4+1, "four deliveries left out, one restart in")
}

// TestOwnContents checks that an offered client message takes the
// contents of the trace's own message of its type (the latest before the
// cut, else the first after it) and that offers made equal are listed
// once.
func TestOwnContents(t *testing.T) {
	ev := injectEvents()
	offers := []record.Event{record.SendEvent("a", injPut{"sys"}), record.SendEvent("b", injPut{"sys"}),
		record.SendEvent("b", injPut{"sys2"}), record.RestartEvent("a")}
	got := ownContents(offers, ev, 2)
	assert.Equal(t, []record.Event{record.SendEvent("a", injPut{"k"}), record.SendEvent("b", injPut{"k"}), record.RestartEvent("a")}, got)
}
