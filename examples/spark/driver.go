package spark

import (
	"slices"

	"github.com/demi-project/demi/record"
)

// MaxRegisterAttempts bounds an application's registrations with the
// master (the first included).
const MaxRegisterAttempts = 4

// Storage keys of the driver.
const (
	nextAppKey = "next-app" // int: the number of the next application
	appsKey    = "apps"     // []int: the applications of this driver
)

// Driver is the client driver: every submitted job runs as an
// application (numbered 1, 2, … in stable storage). The driver registers
// the application with the master, again on its "register" timer until
// RegisteredApplication arrives, and schedules
// the job's tasks on the executors that register with it, one task per
// executor at a time, by locality level (scheduler.go). Its "speculate"
// timer marks the running tasks of a job that is half done as speculatable.
// When every task has finished, the driver computes the job's pi estimate
// and tells the master the application finished. A restarted driver has
// lost its applications: it tells the master so (DriverDisconnected).
type Driver struct {
	bugs       bugs
	apps       map[int]*job
	specArmed  bool
	retryArmed bool
	results    []Result
	inversion  *Inversion // ghost: the first launch out of locality order
}

// job is the driver's state of one application.
type job struct {
	tasks      []task
	registered bool
	attempts   int
	execs      []record.ActorID // registered executors, in registration order
	busy       map[record.ActorID]bool
	finished   int
	inside     int
}

// Result is a finished job's estimate of pi.
type Result struct {
	App int
	Pi  float64
}

func newDriver(o record.Options) *Driver {
	return &Driver{bugs: bugsOf(o), apps: map[int]*job{}}
}

// Start: a restarted driver's applications are gone with its previous
// incarnation; it reports each to the master.
func (d *Driver) Start(ctx *record.Context) {
	if v, ok := ctx.Storage().Get(appsKey); ok {
		for _, app := range v.([]int) {
			ctx.Send(MasterID, DriverDisconnected{App: app})
		}
		ctx.Storage().Delete(appsKey)
	}
}

// Receive handles the driver's messages.
func (d *Driver) Receive(ctx *record.Context, from record.ActorID, msg record.Message) {
	switch msg := msg.(type) {
	case SubmitJob:
		d.submit(ctx, msg)
	case RegisterRetry:
		d.retryArmed = false
		for _, app := range d.appNumbers() {
			if j := d.apps[app]; !j.registered && j.attempts < MaxRegisterAttempts {
				ctx.Send(MasterID, RegisterApplication{App: app, Tasks: len(j.tasks), Attempt: j.attempts})
				j.attempts++
			}
		}
		d.armRetry(ctx)
	case RegisteredApplication:
		if j := d.apps[msg.App]; j != nil && !j.registered {
			j.registered = true
			if !d.retrying() && d.retryArmed {
				d.retryArmed = false
				ctx.CancelTimer("register")
			}
		}
	case RegisterExecutor:
		j := d.apps[msg.App]
		if j == nil || slices.Contains(j.execs, from) {
			return
		}
		j.execs = append(j.execs, from)
		d.offer(ctx, msg.App, from)
	case StatusUpdate:
		d.status(ctx, from, msg)
	case Speculate:
		d.specArmed = false
		d.speculate(ctx)
	}
}

// retrying reports whether an application waits for its registration
// and has attempts left.
func (d *Driver) retrying() bool {
	for _, j := range d.apps {
		if !j.registered && j.attempts < MaxRegisterAttempts {
			return true
		}
	}
	return false
}

// armRetry arms the "register" timer when an application is still to be
// registered. One timer serves every application, so that its key does not
// depend on application numbers (which shift when minimization removes an
// earlier job submission).
func (d *Driver) armRetry(ctx *record.Context) {
	if !d.retryArmed && d.retrying() {
		d.retryArmed = true
		ctx.SetTimer("register", RegisterRetry{})
	}
}

// submit starts the application of a job: its bootstrap registers it with
// the master.
func (d *Driver) submit(ctx *record.Context, m SubmitJob) {
	if len(m.Prefs) == 0 {
		return
	}
	st := ctx.Storage()
	app := 1
	if v, ok := st.Get(nextAppKey); ok {
		app = v.(int)
	}
	st.Put(nextAppKey, app+1)
	var apps []int
	if v, ok := st.Get(appsKey); ok {
		apps = v.([]int)
	}
	st.Put(appsKey, append(apps, app))
	j := &job{tasks: make([]task, len(m.Prefs)), busy: map[record.ActorID]bool{}, attempts: 1}
	for i, p := range m.Prefs {
		j.tasks[i].Pref = p
	}
	d.apps[app] = j
	ctx.Send(MasterID, RegisterApplication{App: app, Tasks: len(m.Prefs)})
	d.armRetry(ctx)
}

// offer offers executor exec's slot to application app's tasks.
func (d *Driver) offer(ctx *record.Context, app int, exec record.ActorID) {
	j := d.apps[app]
	if j.busy[exec] {
		return
	}
	host := HostOf(exec)
	i, l := findTask(j.tasks, exec, host, d.bugs.localityInversion)
	if i < 0 {
		return
	}
	if inv := inversion(app, j.tasks, i, l, exec, host); inv != nil && d.inversion == nil {
		d.inversion = inv
	}
	t := &j.tasks[i]
	t.Launched = true
	t.Attempts++
	t.Running = append(t.Running, exec)
	j.busy[exec] = true
	ctx.Send(exec, LaunchTask{App: app, Task: i, Attempt: t.Attempts - 1, Level: l})
	if !d.specArmed {
		d.specArmed = true
		ctx.SetTimer("speculate", Speculate{})
	}
}

// status handles an executor's report of a task attempt.
func (d *Driver) status(ctx *record.Context, exec record.ActorID, m StatusUpdate) {
	j := d.apps[m.App]
	if j == nil || m.State != TaskFinished || m.Task < 0 || m.Task >= len(j.tasks) {
		return
	}
	j.busy[exec] = false
	t := &j.tasks[m.Task]
	t.Running = slices.DeleteFunc(t.Running, func(x record.ActorID) bool { return x == exec })
	if !t.Finished {
		t.Finished = true
		j.finished++
		j.inside += m.Inside
	}
	if j.finished < len(j.tasks) {
		d.offer(ctx, m.App, exec)
		return
	}
	d.results = append(d.results, Result{App: m.App, Pi: 4 * float64(j.inside) / float64(SliceSize*len(j.tasks))})
	delete(d.apps, m.App)
	if v, ok := ctx.Storage().Get(appsKey); ok {
		ctx.Storage().Put(appsKey, slices.DeleteFunc(v.([]int), func(x int) bool { return x == m.App }))
	}
	ctx.Send(MasterID, ApplicationFinished{App: m.App})
}

// speculate marks the running tasks of every job that has finished at
// least half of its tasks as speculatable, and offers the free executors
// the copies.
func (d *Driver) speculate(ctx *record.Context) {
	for _, app := range d.appNumbers() {
		j := d.apps[app]
		if 2*j.finished < len(j.tasks) {
			continue
		}
		for i := range j.tasks {
			if t := &j.tasks[i]; len(t.Running) > 0 && !t.Finished {
				t.Speculatable = true
			}
		}
		for _, x := range j.execs {
			d.offer(ctx, app, x)
		}
	}
}

// appNumbers returns the driver's applications in order.
func (d *Driver) appNumbers() []int {
	out := make([]int, 0, len(d.apps))
	for app := range d.apps {
		out = append(out, app)
	}
	slices.Sort(out)
	return out
}

// DriverState is the driver's state as demi show displays it.
type DriverState struct {
	Apps    map[int]JobState
	Results []Result
}

// JobState is one application's job as demi show displays it.
type JobState struct {
	Registered bool
	Executors  []record.ActorID
	// Tasks shows each task: its preferred host and its state (pending,
	// running on executors, speculatable, finished).
	Tasks []string
}

// Snapshot returns the driver's state for display.
func (d *Driver) Snapshot() any {
	s := DriverState{Apps: map[int]JobState{}, Results: slices.Clone(d.results)}
	for app, j := range d.apps {
		js := JobState{Registered: j.registered, Executors: slices.Clone(j.execs)}
		for _, t := range j.tasks {
			st := "pending"
			switch {
			case t.Finished:
				st = "finished"
			case len(t.Running) > 0:
				st = "running on " + joinIDs(t.Running)
				if t.Speculatable {
					st += " (speculatable)"
				}
			}
			pref := string(t.Pref)
			if t.Pref == NoPref {
				pref = "no pref"
			}
			js.Tasks = append(js.Tasks, pref+": "+st)
		}
		s.Apps[app] = js
	}
	return s
}

func joinIDs(ids []record.ActorID) string {
	s := ""
	for i, id := range ids {
		if i > 0 {
			s += ","
		}
		s += string(id)
	}
	return s
}
