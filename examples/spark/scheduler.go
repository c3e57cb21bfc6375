package spark

import (
	"fmt"

	"github.com/demi-project/demi/record"
)

// Level is a locality level of a task launch on an executor, best first.
type Level uint8

// The locality levels, in the order the scheduler must try them: a task
// whose input is on the executor's host, a task without preference, a task
// whose input is elsewhere, and last a speculative copy of a task that is
// already running.
const (
	NodeLocal Level = iota + 1
	NoPrefLevel
	Any
	Speculative
)

func (l Level) String() string {
	switch l {
	case NodeLocal:
		return "NODE_LOCAL"
	case NoPrefLevel:
		return "NO_PREF"
	case Any:
		return "ANY"
	case Speculative:
		return "SPECULATIVE"
	}
	return fmt.Sprintf("Level(%d)", uint8(l))
}

// task is the driver's view of one task of a job.
type task struct {
	Pref         record.ActorID   // the preferred host (a worker), or NoPref
	Launched     bool             // an attempt was launched
	Running      []record.ActorID // executors running an attempt
	Attempts     int
	Speculatable bool // running for long enough that a copy may be launched
	Finished     bool
}

// level is the locality level of a fresh attempt of t on an executor of
// host (ignoring speculation).
func (t *task) level(host record.ActorID) Level {
	switch t.Pref {
	case host:
		return NodeLocal
	case NoPref:
		return NoPrefLevel
	}
	return Any
}

// speculatable reports whether a copy of t may be launched on exec.
func (t *task) speculatable(exec record.ActorID) bool {
	if !t.Speculatable || t.Finished || t.Attempts > 1 {
		return false
	}
	for _, r := range t.Running {
		if r == exec {
			return false
		}
	}
	return true
}

// findTask picks the task to launch on exec (of host) and its level, or
// -1. The correct order tries every level in turn: NODE_LOCAL, NO_PREF,
// ANY, then a speculative copy. With spark-2294 the scheduler tries, at
// the NODE_LOCAL level, speculative copies of tasks local to the host
// first, as Spark's findTask looked for speculative tasks at its most
// local level, then the tasks that prefer the host and those without
// preference together in task order, before tasks that prefer other
// hosts: a speculative copy can go before a task that has not run at all,
// and a NO_PREF task before a NODE_LOCAL one.
func findTask(tasks []task, exec, host record.ActorID, inverted bool) (int, Level) {
	pending := func(ok func(*task) bool) int {
		for i := range tasks {
			if t := &tasks[i]; !t.Launched && ok(t) {
				return i
			}
		}
		return -1
	}
	spec := func(ok func(*task) bool) int {
		for i := range tasks {
			if t := &tasks[i]; t.speculatable(exec) && ok(t) {
				return i
			}
		}
		return -1
	}
	if inverted {
		if i := spec(func(t *task) bool { return t.Pref == host || t.Pref == NoPref }); i >= 0 {
			return i, Speculative
		}
		if i := pending(func(t *task) bool { return t.Pref == host || t.Pref == NoPref }); i >= 0 {
			return i, tasks[i].level(host)
		}
		if i := pending(func(*task) bool { return true }); i >= 0 {
			return i, Any
		}
		if i := spec(func(*task) bool { return true }); i >= 0 {
			return i, Speculative
		}
		return -1, 0
	}
	for _, l := range []Level{NodeLocal, NoPrefLevel, Any} {
		if i := pending(func(t *task) bool { return t.level(host) == l }); i >= 0 {
			return i, l
		}
	}
	if i := spec(func(*task) bool { return true }); i >= 0 {
		return i, Speculative
	}
	return -1, 0
}

// Inversion is a launch that broke the locality order: task Task went at
// level Level while task Better of the same job could have gone at the
// better level BetterLevel (ghost state, for the invariant).
type Inversion struct {
	App, Task   int
	Level       Level
	Exec        record.ActorID
	Better      int
	BetterLevel Level
}

// inversion returns the inversion that launching task i at level l on exec
// (of host) makes, or nil: a task of the job that has not been launched at
// all and has a better level on this executor.
func inversion(app int, tasks []task, i int, l Level, exec, host record.ActorID) *Inversion {
	best, bestLevel := -1, l
	for j := range tasks {
		t := &tasks[j]
		if j == i || t.Launched {
			continue
		}
		if tl := t.level(host); tl < bestLevel {
			best, bestLevel = j, tl
		}
	}
	if best < 0 {
		return nil
	}
	return &Inversion{App: app, Task: i, Level: l, Exec: exec, Better: best, BetterLevel: bestLevel}
}
