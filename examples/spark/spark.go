// Package spark is the DEMi paper's second case study: the control plane
// of Apache Spark's core engine (standalone mode) written as demi actors,
// with the three Spark bugs the paper reproduced or found available as
// switches. Every other example is a consensus protocol; this one is a
// scheduler: a static master, workers that join and register, a client
// driver that registers applications with retries and submits jobs, and
// executors that run tasks and report their status.
//
// # The system
//
//   - master: the cluster manager. Workers and applications register with
//     it; it gives each application executors on free workers (at most
//     executors-per-app) and frees them when the application is done. It
//     persists its state (workers, applications, drivers, finished
//     applications) in stable storage, Spark's "ColdReplication" mode, and
//     a restarted master recovers from it.
//   - worker-1 … worker-N: machines that join the cluster (an external
//     start event), register with the master (again on a timer until it
//     answers), send heartbeats, and launch the executor on their host for
//     an application when the master asks.
//   - exec-1 … exec-N: the executor on each worker's host. Launched for an
//     application, it registers with the driver and runs the tasks the
//     driver launches on it, one at a time, reporting RUNNING and FINISHED
//     (the task's work is a RunTask message to itself, its TaskRunner).
//   - driver: the client. A job submission (an external SubmitJob: the
//     parallel approximation of pi the paper ran, one task per slice, each
//     slice preferring a worker's host or none) becomes an application:
//     the driver registers it with the master (again on a timer until the
//     master answers) and schedules its tasks on the executors that
//     register, by locality level: NODE_LOCAL, NO_PREF, ANY, then
//     speculative copies of running tasks (its "speculate" timer marks the
//     running tasks of a half-done job). A restarted driver has lost its
//     applications and tells the master (DriverDisconnected).
//
// The external events are the paper's: worker joins, job submissions,
// crash-restarts of the master (and of the driver), drawn at random by
// weights (options join-weight, submit-weight, master-restart-weight,
// driver-restart-weight). Every run starts the master, the driver and the
// executors.
//
// # Bug switches and invariants
//
//   - spark-2294 (locality inversion): the scheduler tries tasks without
//     preference together with NODE_LOCAL ones, and speculative copies
//     local to the host before any other task (scheduler.go). The invariant
//     LocalityOrder: no task is launched on an executor while a task of the
//     same job that has not run at all had a better locality level there.
//   - spark-3150 (simultaneous failure): when the driver and the master fail
//     together, the master can crash between removing the driver's record
//     and the application's; the recovering master dereferences the missing
//     driver record and crashes, and again at every restart. The invariant
//     is that no actor panics: the violation is the master's panic, with
//     its fingerprint (the runtime error and the function).
//   - spark-9256 (delayed RegisteredApplication): when the driver's
//     registration times out before the master's answer arrives, it
//     registers again; the master persists the application's records a
//     second time, and creating a record that exists is fatal
//     (IllegalStateException).
package spark

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/demi-project/demi/record"
)

// The bug switches, in the order of the paper's Table 1.
const (
	Bug2294 = "spark-2294"
	Bug3150 = "spark-3150"
	Bug9256 = "spark-9256"
)

// BugNames returns the bug switches in the order of the paper's Table 1.
func BugNames() []string { return []string{Bug2294, Bug3150, Bug9256} }

// Option names other than the bug switches.
const (
	OptWorkers             = "workers"
	OptExecutorsPerApp     = "executors-per-app"
	OptMaxTasks            = "max-tasks"
	OptJoinWeight          = "join-weight"
	OptSubmitWeight        = "submit-weight"
	OptMasterRestartWeight = "master-restart-weight"
	OptDriverRestartWeight = "driver-restart-weight"
)

// Bounds of the options (record.OptionSpec).
const (
	MaxWorkers = 16
	MaxTasks   = 64
	MaxWeight  = 1000
)

// The actors that are always there.
const (
	MasterID record.ActorID = "master"
	DriverID record.ActorID = "driver"
)

// bugs holds the bug switches of a run.
type bugs struct {
	localityInversion, recoveryNPE, dupRegister bool
}

func bugsOf(o record.Options) bugs {
	return bugs{localityInversion: o.Bool(Bug2294), recoveryNPE: o.Bool(Bug3150), dupRegister: o.Bool(Bug9256)}
}

// Workers returns the workers worker-1 … worker-N.
func Workers(o record.Options) []record.ActorID {
	n := max(1, o.Int(OptWorkers))
	out := make([]record.ActorID, n)
	for i := range out {
		out[i] = record.ActorID(fmt.Sprintf("worker-%d", i+1))
	}
	return out
}

// ExecutorOf returns the executor on worker's host.
func ExecutorOf(worker record.ActorID) record.ActorID {
	return record.ActorID("exec-" + strings.TrimPrefix(string(worker), "worker-"))
}

// HostOf returns the worker whose host runs executor exec.
func HostOf(exec record.ActorID) record.ActorID {
	return record.ActorID("worker-" + strings.TrimPrefix(string(exec), "exec-"))
}

// Members returns the actors of a run: the master, the driver, the
// workers and their executors.
func Members(o record.Options) []record.ActorID {
	ws := Workers(o)
	out := []record.ActorID{MasterID, DriverID}
	out = append(out, ws...)
	for _, w := range ws {
		out = append(out, ExecutorOf(w))
	}
	return out
}

// Setup starts the master, the driver and the executors; workers join by
// external events.
func Setup(o record.Options) []record.Event {
	evs := []record.Event{record.StartEvent(MasterID), record.StartEvent(DriverID)}
	for _, w := range Workers(o) {
		evs = append(evs, record.StartEvent(ExecutorOf(w)))
	}
	return evs
}

// System returns the Spark system definition.
func System() *record.System {
	opts := []record.OptionSpec{
		{Name: OptWorkers, Default: "3", Usage: "number of workers (each with one executor)", Min: 1, Max: MaxWorkers},
		{Name: OptExecutorsPerApp, Default: "2", Usage: "executors the master gives an application at most", Min: 1, Max: MaxWorkers},
		{Name: OptMaxTasks, Default: "4", Usage: "tasks of a submitted job at most", Min: 1, Max: MaxTasks},
		{Name: OptJoinWeight, Default: "10", Usage: "fuzzing weight of worker joins", Min: 0, Max: MaxWeight},
		{Name: OptSubmitWeight, Default: "10", Usage: "fuzzing weight of job submissions", Min: 0, Max: MaxWeight},
		{Name: OptMasterRestartWeight, Default: "0", Usage: "fuzzing weight of master crash-restarts", Min: 0, Max: MaxWeight},
		{Name: OptDriverRestartWeight, Default: "0", Usage: "fuzzing weight of driver crash-restarts", Min: 0, Max: MaxWeight},
	}
	docs := map[string]string{
		Bug2294: "locality inversion: speculative copies and NO_PREF tasks go before better-placed tasks of the job",
		Bug3150: "a master recovering from a half-removed application dereferences its missing driver record, at every restart",
		Bug9256: "a repeated RegisterApplication makes the master persist the application's records again (fatal)",
	}
	for _, b := range BugNames() {
		opts = append(opts, record.OptionSpec{Name: b, Default: "false", Usage: docs[b], Bug: true})
	}
	return &record.System{
		Name:    "spark",
		Doc:     "Spark's control plane: master, workers, driver, executors, with the DEMi Spark bugs",
		Options: opts,
		Members: Members,
		New: func(id record.ActorID, o record.Options) record.Actor {
			switch {
			case id == MasterID:
				return newMaster(o)
			case id == DriverID:
				return newDriver(o)
			case strings.HasPrefix(string(id), "worker-"):
				return newWorker(id)
			}
			return &Executor{}
		},
		Messages:  messages(),
		Invariant: invariant,
		Setup:     Setup,
		Externals: []record.Generator{{Name: "spark-external", Weight: 1, Make: makeExternal}},
		Swarm:     swarm(),
	}
}

// swarm is what a swarm-mode fuzz run of Spark draws (record.Swarm): the
// weights of worker joins, job submissions and master and driver
// crash-restarts, each kind left out of some runs, the number of external
// events and their rate, and the timer probability.
func swarm() *record.SwarmSpec {
	return &record.SwarmSpec{
		Options: []record.SwarmOption{
			{Name: OptJoinWeight, Off: 0.1, Min: 1, Max: 20},
			{Name: OptSubmitWeight, Off: 0.1, Min: 1, Max: 20},
			{Name: OptMasterRestartWeight, Off: 0.4, Min: 1, Max: 10},
			{Name: OptDriverRestartWeight, Off: 0.4, Min: 1, Max: 10},
		},
		TimerProb:    [2]float64{0.02, 0.2},
		Externals:    [2]int{10, 60},
		ExternalProb: [2]float64{0.005, 0.1},
	}
}

// makeExternal draws one external event, its kind by the weight options: a
// worker joins (one that is not running yet), a job is submitted, the
// master or the driver crash-restarts.
func makeExternal(r *rand.Rand, v record.View) (record.Event, bool) {
	o := v.Options()
	w := [4]int{o.Int(OptJoinWeight), o.Int(OptSubmitWeight), o.Int(OptMasterRestartWeight), o.Int(OptDriverRestartWeight)}
	total := w[0] + w[1] + w[2] + w[3]
	if total == 0 {
		return record.Event{}, false
	}
	x := r.IntN(total)
	switch {
	case x < w[0]:
		var idle []record.ActorID
		for _, id := range Workers(o) {
			if !v.Running(id) {
				idle = append(idle, id)
			}
		}
		if len(idle) == 0 {
			return record.Event{}, false
		}
		return record.StartEvent(idle[r.IntN(len(idle))]), true
	case x < w[0]+w[1]:
		return record.SendEvent(DriverID, randomJob(r, o)), true
	case x < w[0]+w[1]+w[2]:
		return record.RestartEvent(MasterID), true
	default:
		return record.RestartEvent(DriverID), true
	}
}

// randomJob is a pi job of 1 to max-tasks tasks. Jobs differ in their
// locality preferences: all tasks prefer a worker's host, or none does, or
// (one job in five) each task is either.
func randomJob(r *rand.Rand, o record.Options) SubmitJob {
	ws := Workers(o)
	n := 1 + r.IntN(max(1, o.Int(OptMaxTasks)))
	kind := r.IntN(5)
	prefs := make([]record.ActorID, n)
	for i := range prefs {
		switch {
		case kind < 2 || kind == 4 && r.IntN(2) == 0:
			prefs[i] = ws[r.IntN(len(ws))]
		case kind < 4:
			prefs[i] = NoPref
		}
	}
	return SubmitJob{Prefs: prefs}
}

// LocalityOrder is the invariant's name in violation fingerprints.
const LocalityOrder = "LocalityOrder"

// invariant checks that the driver's scheduler launched no task out of
// locality order. The fingerprint is the invariant's name alone: a
// speculative copy launched before a task that never ran and a NO_PREF task
// launched before a NODE_LOCAL one are the same bug (the detail says which). Panics (spark-3150, spark-9256) are violations of their
// own: the runtime reports them with their fingerprint.
func invariant(v record.View) *record.Violation {
	d, ok := v.Actor(DriverID).(*Driver)
	if !ok || d.inversion == nil {
		return nil
	}
	inv := d.inversion
	return &record.Violation{
		Fingerprint: LocalityOrder,
		Detail: fmt.Sprintf("app %d: task %d launched at %s on %s while task %d, never launched, was %s there (%s before %s)",
			inv.App, inv.Task, inv.Level, inv.Exec, inv.Better, inv.BetterLevel, inv.Level, inv.BetterLevel),
	}
}
