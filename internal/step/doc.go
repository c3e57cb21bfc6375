// Package step is the step-through replay behind `demi replay --step`: a
// person walks through a trace event by event, looks at every actor's
// state, sets breakpoints, and tries what-ifs.
//
// The pieces, from the bottom:
//
//   - A Session is one execution laid out in steps (Open reads a trace).
//     At(k) re-creates the run right after step k: the actors' states
//     before and after it (State, rendered as text through the actor's
//     Snapshot method, or through reflection when it has none, with long
//     collections folded), the pending messages (which are deliverable,
//     which wait behind another under FIFO) and the invariant's verdict.
//     It is implemented over package record's schedule driver: forward
//     takes the steps in between, back re-executes from the start.
//   - WhatIf makes a new execution: the same steps up to k, then a change
//     (deliver another pending message, drop one, crash-restart, kill or
//     start an actor, inject an external message, a partition or a heal),
//     then the rest of the schedule followed where it still applies, until
//     the invariant breaks or the schedule ends. Executions never change,
//     so undoing a what-if is going back to the previous one.
//   - A Walk is a walk through executions: the current step, the stack of
//     what-ifs, breakpoints, search, the round view, the actor shown in
//     full. Commands (Parse reads them: next, prev, goto, break, continue,
//     violation, rounds, search, state, deliver, drop, restart, kill,
//     inject, undo, save, help, quit) drive it; Screen says what to show.
//   - A Screen renders as plain text (Text; Script is the scripted mode,
//     one command a line on stdin) or styled in a terminal (package tui,
//     with bubbletea). Both show the same information: what color
//     highlights in the terminal, marks and words say in text.
//
// Steps are numbered from 0, as `demi show` numbers a trace's events.
package step
