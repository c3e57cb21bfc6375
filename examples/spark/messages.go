package spark

import (
	"fmt"
	"strings"

	"github.com/demi-project/demi/record"
)

// Locality preferences of a task: the worker host whose executor holds
// its input, or NoPref.
const NoPref record.ActorID = ""

// SubmitJob is the external event of a job submission: a client asks the
// driver to run the pi job split into one task per entry of Prefs, each
// task preferring the executor on that worker's host (NoPref: none).
type SubmitJob struct {
	Prefs []record.ActorID
}

func (m SubmitJob) String() string { return "SubmitJob{" + prefsString(m.Prefs) + "}" }

// Components and WithoutComponent let minimization drop tasks from a job
// (record.Shrinkable), as it drops members from a Raft bootstrap list.
func (m SubmitJob) Components() int { return len(m.Prefs) }

// WithoutComponent returns the job without task i.
func (m SubmitJob) WithoutComponent(i int) record.Message {
	p := make([]record.ActorID, 0, len(m.Prefs)-1)
	p = append(p, m.Prefs[:i]...)
	return SubmitJob{Prefs: append(p, m.Prefs[i+1:]...)}
}

func prefsString(prefs []record.ActorID) string {
	parts := make([]string, len(prefs))
	for i, p := range prefs {
		parts[i] = string(p)
		if p == NoPref {
			parts[i] = "-"
		}
	}
	return strings.Join(parts, " ")
}

// RegisterWorker is a worker's registration with the master, sent when it
// joins and again on its "register" timer until the master answers. The
// first one (Attempt 0) is sent while the worker boots: it is a bootstrap
// message, unignorable on replay (record.Unignorable).
type RegisterWorker struct {
	Attempt int
}

func (m RegisterWorker) String() string { return fmt.Sprintf("RegisterWorker{attempt %d}", m.Attempt) }

// Unignorable marks the boot-time registration (see record.Unignorable).
func (m RegisterWorker) Unignorable() bool { return m.Attempt == 0 }

// RegisteredWorker is the master's answer to RegisterWorker.
type RegisteredWorker struct{}

// Heartbeat is a registered worker's periodic sign of life, sent on its
// "heartbeat" timer.
type Heartbeat struct{}

// RegisterApplication is the driver's registration of the application of
// one job with the master, sent when the job is submitted and again on the
// driver's "register" timer until RegisteredApplication arrives
// (at most MaxRegisterAttempts in all). The first one (Attempt 0) is sent
// by the application's bootstrap and is unignorable on replay.
type RegisterApplication struct {
	App     int
	Tasks   int
	Attempt int
}

func (m RegisterApplication) String() string {
	return fmt.Sprintf("RegisterApplication{app %d, %d tasks, attempt %d}", m.App, m.Tasks, m.Attempt)
}

// Unignorable marks the bootstrap registration (see record.Unignorable).
func (m RegisterApplication) Unignorable() bool { return m.Attempt == 0 }

// RegisteredApplication is the master's answer to RegisterApplication.
type RegisteredApplication struct {
	App int
}

func (m RegisteredApplication) String() string {
	return fmt.Sprintf("RegisteredApplication{app %d}", m.App)
}

// LaunchExecutor asks a worker (from the master) and then its executor
// (from the worker) to serve application App.
type LaunchExecutor struct {
	App int
}

func (m LaunchExecutor) String() string { return fmt.Sprintf("LaunchExecutor{app %d}", m.App) }

// KillExecutor releases a worker's executor (from the master, then from
// the worker to its executor) from application App.
type KillExecutor struct {
	App int
}

func (m KillExecutor) String() string { return fmt.Sprintf("KillExecutor{app %d}", m.App) }

// RegisterExecutor is an executor's registration with the driver of the
// application it was launched for: it offers its slot to the scheduler.
type RegisterExecutor struct {
	App int
}

func (m RegisterExecutor) String() string { return fmt.Sprintf("RegisterExecutor{app %d}", m.App) }

// LaunchTask is the driver's scheduler launching one attempt of a task on
// an executor, at a locality level.
type LaunchTask struct {
	App, Task, Attempt int
	Level              Level
}

func (m LaunchTask) String() string {
	return fmt.Sprintf("LaunchTask{app %d task %d.%d %s}", m.App, m.Task, m.Attempt, m.Level)
}

// RunTask is an executor's TaskRunner at work: sent by the executor to
// itself when it starts a task, delivered when the task's computation is
// done.
type RunTask struct {
	App, Task, Attempt int
}

func (m RunTask) String() string {
	return fmt.Sprintf("RunTask{app %d task %d.%d}", m.App, m.Task, m.Attempt)
}

// TaskState is a task attempt's state in a StatusUpdate.
type TaskState uint8

// The states an executor reports.
const (
	TaskRunning TaskState = iota + 1
	TaskFinished
)

func (s TaskState) String() string {
	if s == TaskFinished {
		return "FINISHED"
	}
	return "RUNNING"
}

// StatusUpdate is an executor's report of a task attempt to the driver.
// A finished attempt carries its share of the pi estimate: the points of
// its slice that fell inside the circle.
type StatusUpdate struct {
	App, Task, Attempt int
	State              TaskState
	Inside             int
}

func (m StatusUpdate) String() string {
	if m.State == TaskFinished {
		return fmt.Sprintf("StatusUpdate{app %d task %d.%d FINISHED %d}", m.App, m.Task, m.Attempt, m.Inside)
	}
	return fmt.Sprintf("StatusUpdate{app %d task %d.%d RUNNING}", m.App, m.Task, m.Attempt)
}

// Speculate is the driver's periodic speculation check (its "speculate"
// timer).
type Speculate struct{}

// RegisterRetry is the timer of the driver's registration retries: when it
// fires, the driver registers again every application the master has not
// answered yet.
type RegisterRetry struct{}

// WorkerRetry is the timer of a worker's registration retries.
type WorkerRetry struct{}

// HeartbeatTick is the timer of a worker's heartbeats.
type HeartbeatTick struct{}

// ApplicationFinished tells the master that the application's job is done:
// it removes the application's records and frees its executors.
type ApplicationFinished struct {
	App int
}

func (m ApplicationFinished) String() string {
	return fmt.Sprintf("ApplicationFinished{app %d}", m.App)
}

// DriverDisconnected tells the master that the driver of application App
// is gone: a restarted driver sends it for every application its previous
// incarnation had (it stands for the transport's disassociation event of a
// real deployment). The master removes the driver's record and stops the
// application's executors; it removes the application's record once they
// have all exited (ExecutorStateChanged), or at once (RemoveApplication)
// when there are none.
type DriverDisconnected struct {
	App int
}

func (m DriverDisconnected) String() string { return fmt.Sprintf("DriverDisconnected{app %d}", m.App) }

// ExecutorExited is an executor's answer to KillExecutor, to its worker.
type ExecutorExited struct {
	App int
}

func (m ExecutorExited) String() string { return fmt.Sprintf("ExecutorExited{app %d}", m.App) }

// ExecutorStateChanged is a worker's report to the master that the
// executor it ran for application App has exited.
type ExecutorStateChanged struct {
	App int
}

func (m ExecutorStateChanged) String() string {
	return fmt.Sprintf("ExecutorStateChanged{app %d exited}", m.App)
}

// RemoveApplication is the master's second step of removing an
// application whose driver disconnected and that has no executors, sent
// to itself.
type RemoveApplication struct {
	App int
}

func (m RemoveApplication) String() string { return fmt.Sprintf("RemoveApplication{app %d}", m.App) }

func messages() []record.Message {
	return []record.Message{
		SubmitJob{}, RegisterWorker{}, RegisteredWorker{}, Heartbeat{},
		RegisterApplication{}, RegisteredApplication{}, LaunchExecutor{}, KillExecutor{},
		RegisterExecutor{}, LaunchTask{}, RunTask{}, StatusUpdate{}, Speculate{},
		RegisterRetry{}, WorkerRetry{}, HeartbeatTick{}, ApplicationFinished{},
		DriverDisconnected{}, RemoveApplication{}, ExecutorExited{}, ExecutorStateChanged{},
	}
}
