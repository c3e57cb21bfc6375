package spark

import (
	"slices"

	"github.com/demi-project/demi/record"
)

// Master is the cluster manager: workers register with it, applications
// register with it, and it assigns each application executors on free
// workers (at most the executors-per-app option), in registration order.
// Everything it knows is also persisted (persist.go), and a restarted
// master recovers from its records.
type Master struct {
	bugs    bugs
	perApp  int
	members []record.ActorID // the workers, in the run's order

	workers map[record.ActorID]*workerRecord // registered workers
	apps    map[int]*appInfo                 // registered, unfinished applications
	order   []int                            // apps in registration order
	done    map[int]bool                     // finished applications
	beats   int                              // heartbeats received (volatile)
}

// appInfo is the master's view of a registered application.
type appInfo struct {
	appRecord
	driver record.ActorID
	// exiting lists the executors still to exit before the application
	// of a disconnected driver is removed (nil: not being removed).
	exiting []record.ActorID
}

func newMaster(o record.Options) *Master {
	return &Master{bugs: bugsOf(o), perApp: o.Int(OptExecutorsPerApp), members: Workers(o)}
}

// Start recovers the master's state from its records: the registered
// workers and what their executors serve, the applications and their
// drivers, the finished applications. An application whose driver record
// is gone was half removed when the master crashed (DriverDisconnected
// ran, RemoveApplication did not): recovery finishes the removal. With
// spark-3150 it follows the application's pointer to its driver record
// without checking it, and the nil dereference crashes the master, at
// every restart, since the records stay as they are.
func (m *Master) Start(ctx *record.Context) {
	e := engine{ctx.Storage()}
	m.workers = map[record.ActorID]*workerRecord{}
	m.apps = map[int]*appInfo{}
	m.done = map[int]bool{}
	for _, k := range e.keys(workerPrefix) {
		v, _ := ctx.Storage().Get(k)
		w := v.(workerRecord)
		m.workers[record.ActorID(k[len(workerPrefix):])] = &w
	}
	for _, app := range e.apps(donePrefix) {
		m.done[app] = true
	}
	drivers := map[int]*driverRecord{}
	for _, app := range e.apps(driverPrefix) {
		v, _ := ctx.Storage().Get(appKey(driverPrefix, app))
		d := v.(driverRecord)
		drivers[app] = &d
	}
	for _, app := range e.apps(appPrefix) {
		v, _ := ctx.Storage().Get(appKey(appPrefix, app))
		a := &appInfo{appRecord: v.(appRecord)}
		d := drivers[app]
		if m.bugs.recoveryNPE {
			a.driver = d.Driver // d is nil for a half-removed application
		} else if d == nil {
			m.apps[app] = a
			m.remove(ctx, app)
			continue
		} else {
			a.driver = d.Driver
		}
		m.apps[app] = a
		m.order = append(m.order, app)
	}
	m.schedule(ctx)
}

// Receive handles the master's messages.
func (m *Master) Receive(ctx *record.Context, from record.ActorID, msg record.Message) {
	e := engine{ctx.Storage()}
	switch msg := msg.(type) {
	case RegisterWorker:
		if _, ok := m.workers[from]; !ok {
			w := &workerRecord{}
			e.create(workerPrefix+string(from), *w)
			m.workers[from] = w
		}
		ctx.Send(from, RegisteredWorker{})
		m.schedule(ctx)
	case Heartbeat:
		m.beats++
	case RegisterApplication:
		if m.done[msg.App] {
			return
		}
		if _, ok := m.apps[msg.App]; ok && !m.bugs.dupRegister {
			// A repeated registration (the driver timed out before our
			// answer arrived): answer again, persist nothing.
			ctx.Send(from, RegisteredApplication{App: msg.App})
			return
		}
		// With spark-9256 a repeated registration gets here, and creating
		// the driver's record again is fatal.
		e.create(appKey(driverPrefix, msg.App), driverRecord{Driver: from})
		a := &appInfo{appRecord: appRecord{App: msg.App, Tasks: msg.Tasks}, driver: from}
		e.create(appKey(appPrefix, msg.App), a.appRecord)
		m.apps[msg.App] = a
		m.order = append(m.order, msg.App)
		ctx.Send(from, RegisteredApplication{App: msg.App})
		m.schedule(ctx)
	case ApplicationFinished:
		if _, ok := m.apps[msg.App]; ok {
			e.remove(appKey(driverPrefix, msg.App))
			m.remove(ctx, msg.App)
			m.schedule(ctx)
		}
	case DriverDisconnected:
		// Two steps, as Spark's master removes the driver, stops its
		// executors and removes the application when they have exited: a
		// crash in between leaves an application record whose driver
		// record is gone.
		a, ok := m.apps[msg.App]
		if !ok || a.exiting != nil {
			return
		}
		e.remove(appKey(driverPrefix, msg.App))
		a.exiting = m.release(ctx, msg.App)
		if len(a.exiting) == 0 {
			ctx.Send(ctx.Self(), RemoveApplication(msg))
		}
		m.schedule(ctx)
	case ExecutorStateChanged:
		a, ok := m.apps[msg.App]
		if !ok || a.exiting == nil {
			return
		}
		a.exiting = slices.DeleteFunc(a.exiting, func(w record.ActorID) bool { return w == from })
		if len(a.exiting) == 0 {
			m.remove(ctx, msg.App)
			m.schedule(ctx)
		}
	case RemoveApplication:
		if _, ok := m.apps[msg.App]; ok {
			m.remove(ctx, msg.App)
			m.schedule(ctx)
		}
	}
}

// release frees the workers whose executors serve app and stops the
// executors; it returns the workers.
func (m *Master) release(ctx *record.Context, app int) []record.ActorID {
	e := engine{ctx.Storage()}
	a := m.apps[app]
	out := []record.ActorID{}
	for _, w := range a.Executors {
		if r := m.workers[w]; r != nil && r.App == app {
			r.App = 0
			e.update(workerPrefix+string(w), *r)
			ctx.Send(w, KillExecutor{App: app})
			out = append(out, w)
		}
	}
	a.Executors = nil
	return out
}

// remove forgets a registered application: its record goes, it is marked
// finished, and its executors are freed.
func (m *Master) remove(ctx *record.Context, app int) {
	e := engine{ctx.Storage()}
	m.release(ctx, app)
	e.remove(appKey(appPrefix, app))
	e.update(appKey(donePrefix, app), true)
	delete(m.apps, app)
	m.order = slices.DeleteFunc(m.order, func(x int) bool { return x == app })
	m.done[app] = true
}

// schedule gives free executors of registered workers, in the run's
// worker order, to the applications that have fewer than executors-per-app,
// in registration order.
func (m *Master) schedule(ctx *record.Context) {
	e := engine{ctx.Storage()}
	for _, app := range m.order {
		a := m.apps[app]
		if a.exiting != nil {
			continue
		}
		for _, w := range m.members {
			if len(a.Executors) >= m.perApp {
				break
			}
			r := m.workers[w]
			if r == nil || r.App != 0 {
				continue
			}
			r.App = app
			a.Executors = append(a.Executors, w)
			e.update(workerPrefix+string(w), *r)
			e.update(appKey(appPrefix, app), a.appRecord)
			ctx.Send(w, LaunchExecutor{App: app})
		}
	}
}

// MasterState is the master's state as demi show displays it.
type MasterState struct {
	Workers map[record.ActorID]int // registered worker → application its executor serves
	Apps    map[int][]record.ActorID
	Done    []int
}

// Snapshot returns the master's state for display.
func (m *Master) Snapshot() any {
	s := MasterState{Workers: map[record.ActorID]int{}, Apps: map[int][]record.ActorID{}}
	for w, r := range m.workers {
		s.Workers[w] = r.App
	}
	for app, a := range m.apps {
		s.Apps[app] = slices.Clone(a.Executors)
	}
	for app := range m.done {
		s.Done = append(s.Done, app)
	}
	slices.Sort(s.Done)
	return s
}
