package spark

import "github.com/demi-project/demi/record"

// MaxWorkerAttempts bounds a worker's registrations (the first included).
const MaxWorkerAttempts = 8

// Worker is a machine that joins the cluster: it registers with the
// master (again on its "register" timer until the master answers), then
// sends heartbeats on its "heartbeat" timer, and launches and kills the
// executor on its host (the actor exec-N of worker-N) as the master asks.
type Worker struct {
	exec       record.ActorID
	attempts   int
	registered bool
}

func newWorker(id record.ActorID) *Worker { return &Worker{exec: ExecutorOf(id)} }

// Start is the worker's boot: its first registration is a bootstrap
// message (unignorable on replay).
func (w *Worker) Start(ctx *record.Context) {
	ctx.Send(MasterID, RegisterWorker{})
	w.attempts = 1
	ctx.SetTimer("register", WorkerRetry{})
}

// Receive handles the worker's messages.
func (w *Worker) Receive(ctx *record.Context, _ record.ActorID, msg record.Message) {
	switch msg := msg.(type) {
	case WorkerRetry:
		if !w.registered && w.attempts < MaxWorkerAttempts {
			ctx.Send(MasterID, RegisterWorker{Attempt: w.attempts})
			w.attempts++
			ctx.SetTimer("register", WorkerRetry{})
		}
	case RegisteredWorker:
		if !w.registered {
			w.registered = true
			ctx.CancelTimer("register")
			ctx.SetTimer("heartbeat", HeartbeatTick{})
		}
	case HeartbeatTick:
		ctx.Send(MasterID, Heartbeat{})
		ctx.SetTimer("heartbeat", HeartbeatTick{})
	case LaunchExecutor:
		ctx.Send(w.exec, msg)
	case KillExecutor:
		ctx.Send(w.exec, msg)
	case ExecutorExited:
		ctx.Send(MasterID, ExecutorStateChanged(msg))
	}
}

// WorkerState is a worker's state as demi show displays it.
type WorkerState struct {
	Registered bool
	Attempts   int
}

// Snapshot returns the worker's state for display.
func (w *Worker) Snapshot() any { return WorkerState{Registered: w.registered, Attempts: w.attempts} }

// Executor runs tasks for one application at a time, one task at a time:
// launched by its worker, it registers with the driver, and for every
// task the driver launches it reports RUNNING, runs the task (a RunTask
// message to itself: its TaskRunner) and reports FINISHED with the task's
// share of the pi estimate.
type Executor struct {
	app int // the application served, 0 when idle
}

// Receive handles the executor's messages.
func (x *Executor) Receive(ctx *record.Context, _ record.ActorID, msg record.Message) {
	switch msg := msg.(type) {
	case LaunchExecutor:
		x.app = msg.App
		ctx.Send(DriverID, RegisterExecutor{App: msg.App})
	case KillExecutor:
		if x.app == msg.App {
			x.app = 0
		}
		ctx.Send(HostOf(ctx.Self()), ExecutorExited(msg))
	case LaunchTask:
		if msg.App != x.app {
			return
		}
		ctx.Send(DriverID, StatusUpdate{App: msg.App, Task: msg.Task, Attempt: msg.Attempt, State: TaskRunning})
		ctx.Send(ctx.Self(), RunTask{App: msg.App, Task: msg.Task, Attempt: msg.Attempt})
	case RunTask:
		if msg.App != x.app {
			return
		}
		ctx.Send(DriverID, StatusUpdate{App: msg.App, Task: msg.Task, Attempt: msg.Attempt,
			State: TaskFinished, Inside: piSlice(msg.Task)})
	}
}

// ExecutorState is an executor's state as demi show displays it.
type ExecutorState struct {
	App int
}

// Snapshot returns the executor's state for display.
func (x *Executor) Snapshot() any { return ExecutorState{App: x.app} }

// SliceSize is the number of sample points of one task of the pi job.
const SliceSize = 100

// piSlice is task's share of the pi job: how many of its SliceSize points
// of a fixed low-discrepancy sequence in the unit square fall inside the
// quarter circle.
func piSlice(task int) int {
	inside := 0
	for k := task * SliceSize; k < (task+1)*SliceSize; k++ {
		x, y := (k*7919)%1000, (k*104729+500)%1000
		if x*x+y*y < 1000*1000 {
			inside++
		}
	}
	return inside
}
