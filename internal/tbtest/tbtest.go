// Package tbtest is a testing.TB that records what a test helper reports
// instead of failing the test, so that tests can assert that a helper
// (demitest.Check) fails a test, and with which message.
package tbtest

import (
	"fmt"
	"sync"
	"testing"
)

// Recorder records Errorf and Logf calls. Other methods go to the
// embedded testing.TB (nil is fine for helpers that use only Helper, Name,
// Errorf and Logf).
type Recorder struct {
	testing.TB
	TestName string

	mu   sync.Mutex
	errs []string
	logs []string
}

// New returns a Recorder named name that passes other calls to t.
func New(t testing.TB, name string) *Recorder { return &Recorder{TB: t, TestName: name} }

// Helper does nothing.
func (r *Recorder) Helper() {}

// Name returns the recorder's test name.
func (r *Recorder) Name() string { return r.TestName }

// Errorf records a failure.
func (r *Recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// Logf records a log line.
func (r *Recorder) Logf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}

// Failed reports whether Errorf was called.
func (r *Recorder) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.errs) > 0
}

// Errors returns the recorded failures.
func (r *Recorder) Errors() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.errs...)
}

// Logs returns the recorded log lines.
func (r *Recorder) Logs() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.logs...)
}
