package record_test

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

// job is a Shrinkable message: a list of preferences, one per task.
type job struct{ Prefs []string }

func (j job) Components() int { return len(j.Prefs) }

func (j job) WithoutComponent(i int) record.Message {
	return job{Prefs: append(append([]string{}, j.Prefs[:i]...), j.Prefs[i+1:]...)}
}

// TestInjectedContents checks the contents System.InjectedContents offers:
// the distinct Shrinkable messages a generator without Each draws, the
// fewest components first, at most n per type; nothing from a generator
// with Each or of weight 0, nor a message that is not Shrinkable.
func TestInjectedContents(t *testing.T) {
	sys := probeSystem(2, record.FIFO, nil)
	sys.Messages = append(sys.Messages, job{})
	hosts := []string{"-", "x", "y"}
	drawJob := func(r *rand.Rand, _ record.View) (record.Event, bool) {
		p := make([]string, 1+r.IntN(2))
		for i := range p {
			p[i] = hosts[r.IntN(len(hosts))]
		}
		return record.SendEvent("a", job{Prefs: p}), true
	}
	sys.Externals = []record.Generator{
		{Name: "listed", Weight: 1, Make: drawJob, Each: func(record.View) []record.Event {
			return []record.Event{record.SendEvent("a", job{Prefs: []string{"listed"}})}
		}},
		{Name: "jobs", Weight: 1, Make: drawJob},
		{Name: "pings", Weight: 1, Make: func(r *rand.Rand, _ record.View) (record.Event, bool) {
			return record.SendEvent("b", Ping{N: r.IntN(9)}), true
		}},
		{Name: "off", Weight: 0, Make: drawJob},
	}
	s := newSim(t, sys, record.StartEvent("a"))
	got := sys.InjectedContents(s.View(), 5)
	var prefs []string
	for _, m := range got {
		prefs = append(prefs, strings.Join(m.(job).Prefs, ","))
	}
	assert.Equal(t, []string{"-", "x", "y"}, sortedPrefix(prefs, 3), "the three one-task jobs first")
	require.Len(t, prefs, 5, "at most n per type")
	for _, p := range prefs[3:] {
		assert.Len(t, strings.Split(p, ","), 2, "then two-task jobs: %q", p)
	}
	assert.Len(t, sys.InjectedContents(s.View(), 100), 3+9, "every distinct job drawn, once")
}

func sortedPrefix(s []string, n int) []string {
	out := slices.Clone(s[:min(n, len(s))])
	slices.Sort(out)
	return out
}
