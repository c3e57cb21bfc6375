// Package lock is a lock server and its clients, written as demi actors.
package lock

import (
	"math/rand/v2"

	"github.com/demi-project/demi/record"
)

// Messages. Want comes from outside (a user wants the lock); the others
// travel between actors. Done is a timer.
type (
	Want    struct{}
	Request struct{}
	Grant   struct{}
	Release struct{}
	Done    struct{}
)

// Server grants the lock to one client at a time.
type Server struct {
	forget bool // the bug: do not keep the holder in stable storage
	holder record.ActorID
}

// Start runs on start and on every crash-restart: the fields are fresh,
// stable storage is what the previous incarnation left.
func (s *Server) Start(ctx *record.Context) {
	if h, ok := ctx.Storage().Get("holder"); ok && !s.forget {
		s.holder = h.(record.ActorID)
	}
}

func (s *Server) Receive(ctx *record.Context, from record.ActorID, msg record.Message) {
	switch msg.(type) {
	case Request:
		if s.holder == "" {
			s.holder = from
			ctx.Storage().Put("holder", from)
			ctx.Send(from, Grant{})
		}
	case Release:
		if s.holder == from {
			s.holder = ""
			ctx.Storage().Put("holder", record.ActorID(""))
		}
	}
}

// Client asks for the lock when it wants it, and holds it until its Done
// timer fires.
type Client struct{ holding bool }

func (c *Client) Receive(ctx *record.Context, from record.ActorID, msg record.Message) {
	switch msg.(type) {
	case Want:
		ctx.Send("server", Request{})
	case Grant:
		c.holding = true
		ctx.SetTimer("done", Done{})
	case Done:
		c.holding = false
		ctx.Send("server", Release{})
	}
}

var clients = []record.ActorID{"c1", "c2", "c3"}

// System describes the lock service to demi.
func System() *record.System {
	return &record.System{
		Name: "lock",
		Doc:  "a lock server and three clients",
		Options: []record.OptionSpec{
			{Name: "forget-holder", Default: "false", Bug: true,
				Usage: "the server does not keep the holder in stable storage"},
		},
		Members: func(record.Options) []record.ActorID {
			return append([]record.ActorID{"server"}, clients...)
		},
		New: func(id record.ActorID, o record.Options) record.Actor {
			if id == "server" {
				return &Server{forget: o.Bool("forget-holder")}
			}
			return &Client{}
		},
		Messages: []record.Message{Want{}, Request{}, Grant{}, Release{}, Done{}},
		Invariant: func(v record.View) *record.Violation {
			var holders []record.ActorID
			for _, id := range clients {
				if c, ok := v.Actor(id).(*Client); ok && c.holding {
					holders = append(holders, id)
				}
			}
			if len(holders) > 1 {
				return &record.Violation{Fingerprint: "two-holders",
					Detail: string(holders[0]) + " and " + string(holders[1]) + " both hold the lock"}
			}
			return nil
		},
		Setup: func(o record.Options) []record.Event {
			var evs []record.Event
			for _, id := range append([]record.ActorID{"server"}, clients...) {
				evs = append(evs, record.StartEvent(id))
			}
			return evs
		},
		Externals: []record.Generator{
			{Name: "want", Weight: 3, Make: func(r *rand.Rand, v record.View) (record.Event, bool) {
				return record.SendEvent(clients[r.IntN(len(clients))], Want{}), true
			}},
			{Name: "restart-server", Weight: 1, Make: func(r *rand.Rand, v record.View) (record.Event, bool) {
				return record.RestartEvent("server"), true
			}},
		},
	}
}
