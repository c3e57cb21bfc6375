package cli_test

import (
	"path/filepath"
	"testing"

	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
)

// Ping is registered; State is the message type a first-time user forgot.
type Ping struct{ N int }
type State struct{ Term int }

// pinger sends a Ping to its peer on start (and a State when forgetful);
// the invariant breaks once the peer has heard anything.
type pinger struct {
	peer      record.ActorID
	forgetful bool
	n         int
	heard     int
}

func (p *pinger) Start(ctx *record.Context) {
	ctx.Send(p.peer, Ping{p.n})
	if p.forgetful {
		ctx.Send(p.peer, State{1})
	}
}

func (p *pinger) Receive(_ *record.Context, _ record.ActorID, _ record.Message) { p.heard++ }

// pingers is a two-actor system. forgetful: its actors send a State,
// which it does not register. global: each new actor numbers its Ping from
// a counter shared by every run, the global state that makes a replay
// differ from the run it replays.
func pingers(forgetful bool, global *int) *record.System {
	return &record.System{
		Name:    "pingers",
		Members: func(record.Options) []record.ActorID { return []record.ActorID{"a", "b"} },
		New: func(id record.ActorID, _ record.Options) record.Actor {
			peer := record.ActorID("b")
			if id == "b" {
				peer = "a"
			}
			p := &pinger{peer: peer, forgetful: forgetful}
			if global != nil {
				*global++
				p.n = *global
			}
			return p
		},
		Messages: []record.Message{Ping{}},
		Invariant: func(v record.View) *record.Violation {
			for _, id := range v.Members() {
				if p, ok := v.Actor(id).(*pinger); ok && p.heard > 0 {
					return &record.Violation{Fingerprint: "heard@" + string(id), Detail: "heard"}
				}
			}
			return nil
		},
		Setup: func(record.Options) []record.Event {
			return []record.Event{record.StartEvent("a"), record.StartEvent("b")}
		},
	}
}

// A message type the system does not register is found at its first Send:
// fuzz stops with an error naming it, and writes no trace that replay
// could not read.
func TestUnregisteredMessageFoundAtFirstSend(t *testing.T) {
	out := filepath.Join(t.TempDir(), "p.trace")
	code, stdout, errs := runWith(t, t.Context(), record.NewCatalog(pingers(true, nil)), nil,
		"fuzz", "--system", "pingers", "--runs", "3", "-o", out)
	assert.Equal(t, 2, code)
	assert.Empty(t, stdout)
	oneLineError(t, errs, "system pingers: a sent a State, a message type the system does not register (add a State value to System.Messages)")
	assert.NoFileExists(t, out)
}

// A system whose runs depend on state outside demi's control: fuzz
// replays what it found before writing it, and names the first event that
// differs and the usual causes.
func TestFuzzReplaysBeforeWriting(t *testing.T) {
	out := filepath.Join(t.TempDir(), "p.trace")
	var counter int
	code, stdout, errs := runWith(t, t.Context(), record.NewCatalog(pingers(false, &counter)), nil,
		"fuzz", "--system", "pingers", "--runs", "3", "-o", out)
	assert.Equal(t, 1, code, stdout+errs)
	oneLineError(t, errs, "the violating run (seed 1) does not replay the same: diverged at event 2")
	assert.Contains(t, errs, "iteration over a map")
	assert.Contains(t, errs, "goroutines, clocks")
	assert.Contains(t, errs, "global or package-level state")
	assert.NoFileExists(t, out)

	// The same system without the shared counter is written.
	code, stdout, errs = runWith(t, t.Context(), record.NewCatalog(pingers(false, nil)), nil,
		"fuzz", "--system", "pingers", "--runs", "3", "-o", out)
	assert.Equal(t, 0, code, stdout+errs)
	assert.FileExists(t, out)
}
