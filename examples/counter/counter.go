// Package counter is a system of your own, in a module of your own: a
// primary-backup counter written as demi actors, in a Go module that
// requires demi (see docs/your-own-module.md). It is what a new user
// writes after docs/writing-a-system.md, and CI builds and tests it as one.
//
// A client adds to the counter at the primary (the external message Add);
// the primary counts, keeps the count in stable storage and copies it to
// the backup. The invariant: the backup is never ahead of the primary.
// The bug switch forget-count makes the primary keep its count in a field
// only, so that a crash-restart forgets it while the backup remembers.
package counter

import (
	"fmt"
	"math/rand/v2"

	"github.com/demi-project/demi/record"
)

// Messages: Add comes from outside, Copy travels from primary to backup.
type (
	Add  struct{}
	Copy struct{ N int }
)

// Primary counts the adds and copies the count to the backup.
type Primary struct {
	forget bool // the bug: the count is not kept in stable storage
	count  int
}

// Start runs on start and on every crash-restart.
func (p *Primary) Start(ctx *record.Context) {
	if n, ok := ctx.Storage().Get("count"); ok && !p.forget {
		p.count = n.(int)
	}
}

// Receive handles an add.
func (p *Primary) Receive(ctx *record.Context, from record.ActorID, msg record.Message) {
	if _, ok := msg.(Add); ok {
		p.count++
		ctx.Storage().Put("count", p.count)
		ctx.Send("backup", Copy{N: p.count})
	}
}

// Snapshot shows the primary's state in demi show and demi replay --step.
func (p *Primary) Snapshot() any { return map[string]any{"count": p.count} }

// Backup holds the latest copy.
type Backup struct{ count int }

// Receive takes a copy.
func (b *Backup) Receive(ctx *record.Context, from record.ActorID, msg record.Message) {
	if c, ok := msg.(Copy); ok && c.N > b.count {
		b.count = c.N
	}
}

// Snapshot shows the backup's state.
func (b *Backup) Snapshot() any { return map[string]any{"count": b.count} }

// System describes the counter to demi.
func System() *record.System {
	members := []record.ActorID{"primary", "backup"}
	return &record.System{
		Name: "counter",
		Doc:  "a primary-backup counter (a module of its own)",
		Options: []record.OptionSpec{
			{Name: "forget-count", Default: "false", Bug: true,
				Usage: "the primary does not keep its count in stable storage"},
		},
		Members: func(record.Options) []record.ActorID { return members },
		New: func(id record.ActorID, o record.Options) record.Actor {
			if id == "primary" {
				return &Primary{forget: o.Bool("forget-count")}
			}
			return &Backup{}
		},
		Messages: []record.Message{Add{}, Copy{}},
		Invariant: func(v record.View) *record.Violation {
			p, ok1 := v.Actor("primary").(*Primary)
			b, ok2 := v.Actor("backup").(*Backup)
			if ok1 && ok2 && b.count > p.count {
				return &record.Violation{Fingerprint: "backup-ahead",
					Detail: fmt.Sprintf("the backup has %d, the primary %d", b.count, p.count)}
			}
			return nil
		},
		Setup: func(record.Options) []record.Event {
			return []record.Event{record.StartEvent("primary"), record.StartEvent("backup")}
		},
		Externals: []record.Generator{
			{Name: "add", Weight: 4, Make: func(*rand.Rand, record.View) (record.Event, bool) {
				return record.SendEvent("primary", Add{}), true
			}},
			{Name: "restart-primary", Weight: 1, Make: func(*rand.Rand, record.View) (record.Event, bool) {
				return record.RestartEvent("primary"), true
			}},
		},
	}
}
