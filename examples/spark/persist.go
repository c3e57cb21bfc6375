package spark

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/demi-project/demi/record"
)

// The master's persistence engine: its "ColdReplication" state lives in
// its stable storage (record.Storage), which survives its crash-restarts,
// as Spark's master keeps it in ZooKeeper or on disk. Like Spark's
// FileSystemPersistenceEngine, creating a record that already exists is a
// fatal error: Spark throws an IllegalStateException, the model panics.

// Storage keys of the master's records.
const (
	workerPrefix = "worker/" // workerRecord of a registered worker
	appPrefix    = "app/"    // appRecord of a registered application
	driverPrefix = "driver/" // driverRecord of an application's driver
	donePrefix   = "done/"   // a finished application (true)
)

// workerRecord is a registered worker: the application its executor
// serves (0: free).
type workerRecord struct {
	App int
}

// appRecord is a registered application: its tasks and the workers whose
// executors serve it.
type appRecord struct {
	App       int
	Tasks     int
	Executors []record.ActorID
}

// driverRecord is the driver of an application.
type driverRecord struct {
	Driver record.ActorID
}

// RecordExists is the panic of a persistence engine asked to create a
// record that already exists (Spark's IllegalStateException).
type RecordExists struct {
	Key string
}

func (e RecordExists) Error() string {
	return "IllegalStateException: persisted record " + e.Key + " already exists"
}

// PanicFingerprint leaves the record's key (its application number) out of
// the violation's fingerprint: a crash on another application's record is
// the same bug.
func (e RecordExists) PanicFingerprint() string {
	return "IllegalStateException: persisted record already exists"
}

// engine reads and writes the master's records.
type engine struct{ s record.Storage }

func appKey(prefix string, app int) string { return prefix + strconv.Itoa(app) }

// create persists a new record; it panics when key already exists.
func (e engine) create(key string, v any) {
	if _, ok := e.s.Get(key); ok {
		panic(RecordExists{Key: key})
	}
	e.s.Put(key, v)
}

// update replaces (or creates) a record.
func (e engine) update(key string, v any) { e.s.Put(key, v) }

func (e engine) remove(key string) { e.s.Delete(key) }

// keys returns the stored keys with prefix, sorted (storage is a map).
func (e engine) keys(prefix string) []string {
	var out []string
	for k := range e.s {
		if strings.HasPrefix(k, prefix) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// apps returns the application numbers stored under prefix, in order.
func (e engine) apps(prefix string) []int {
	var out []int
	for _, k := range e.keys(prefix) {
		n, err := strconv.Atoi(strings.TrimPrefix(k, prefix))
		if err != nil {
			panic(fmt.Sprintf("bad record key %q", k))
		}
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}
