package record_test

import (
	"math/rand/v2"
	"testing"

	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
)

// TestInjections checks what System.Injections offers: a generator's Each
// list as it is, the distinct kinds of a generator without Each (sampled
// from Make), nothing from a generator of weight 0, and lists that follow
// the state (a crashed member is offered a start, not a restart).
func TestInjections(t *testing.T) {
	sys := probeSystem(2, record.FIFO, nil)
	sys.Externals = []record.Generator{
		{Name: "listed", Weight: 1, Make: nil, Each: func(v record.View) []record.Event {
			var out []record.Event
			for _, id := range v.Members() {
				if v.Running(id) {
					out = append(out, record.RestartEvent(id))
				} else {
					out = append(out, record.StartEvent(id))
				}
			}
			return out
		}},
		{Name: "drawn", Weight: 2, Make: func(r *rand.Rand, v record.View) (record.Event, bool) {
			ms := v.Members()
			return record.SendEvent(ms[r.IntN(len(ms))], Ping{N: r.IntN(1000)}), true
		}},
		{Name: "off", Weight: 0, Make: func(*rand.Rand, record.View) (record.Event, bool) {
			return record.KillEvent("a"), true
		}},
	}
	s := newSim(t, sys, record.StartEvent("a"))
	var got []string
	for _, e := range sys.Injections(s.View()) {
		got = append(got, e.Kind.String()+" "+string(e.Actor)+string(e.To)+" "+record.TypeName(e.Msg))
	}
	if assert.Len(t, got, 4) {
		assert.Equal(t, []string{"restart a <nil>", "start b <nil>"}, got[:2], "Each's list, in its order")
		assert.ElementsMatch(t, []string{"send a Ping", "send b Ping"}, got[2:], "Make's draws, one of each kind")
	}
}
