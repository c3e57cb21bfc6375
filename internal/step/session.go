package step

import (
	"context"

	"github.com/demi-project/demi/record"
)

// Session is one execution of a system, laid out in steps, that a person
// walks through. An execution is fixed: a what-if does not change it but
// returns a new one, so going back to an earlier execution (undo) is free.
//
// Steps are numbered from 0 as `demi show` numbers a trace's events; the
// point "at step k" is the state of the run right after event k.
type Session interface {
	// Header describes the run: system, options, seed, network, and the
	// violation the execution reaches (nil if none).
	Header() record.Header
	// Len is the number of steps of the execution.
	Len() int
	// Event returns step i.
	Event(i int) record.Event
	// At re-creates the run at step k (0 <= k < Len()).
	At(ctx context.Context, k int) (*Point, error)
	// WhatIf returns the execution that keeps steps 0..k, then makes the
	// change, then follows the rest of this execution's schedule where it
	// still applies, until the invariant breaks or the schedule ends.
	WhatIf(ctx context.Context, k int, c Change) (Session, *Outcome, error)
	// Trace returns the execution as a trace that replays exactly.
	Trace() *record.Trace
}

// Point is the run at one step.
type Point struct {
	Step  int
	Event record.Event
	// Before and After are every actor's state before and after the step,
	// in the system's order.
	Before, After []State
	// Pending is every message in flight after the step, in send order.
	Pending []Pending
	// Check is the invariant's verdict after the step (nil: it holds).
	Check *record.Violation
}

// Pending is a message in flight, as shown to a person.
type Pending struct {
	record.Pending
	// Deliverable reports whether the message may be delivered next under
	// the network's semantics (under FIFO: it heads its queue, or it is a
	// timer) and its receiver is running.
	Deliverable bool
	// Behind is, under FIFO, the message queued ahead of this one on the
	// same link (0 when it is the head).
	Behind record.MsgID
	// Dropped is set when a what-if (drop) made the message never
	// delivered: it stays in the network (under FIFO, holding back those
	// behind it) but the execution does not deliver it.
	Dropped bool
}

// Change is one what-if: something that happens instead of, or besides,
// what the schedule does next.
type Change struct {
	// Event happens right after the chosen step: the delivery of a pending
	// message (Kind Deliver, ID set) or an external event (crash-restart,
	// kill, start, an external message, a partition or a heal).
	Event record.Event
	// Drop, when set (and Event is zero), is a pending message that is
	// never delivered from here on.
	Drop record.MsgID
}

// Outcome reports what a what-if led to.
type Outcome struct {
	Change Change
	// At is the step of the new execution where the change happened (-1
	// for a drop, which adds no step).
	At int
	// After is the step after which the change was made.
	After int
	// Followed counts the steps of the rest of the schedule that still
	// applied; Skipped those that no longer did (their message was not
	// pending, or their actor was gone).
	Followed, Skipped int
	// Violation is the first violation the new execution reaches, or nil
	// when it follows the schedule to its end without one.
	Violation *record.Violation
}
