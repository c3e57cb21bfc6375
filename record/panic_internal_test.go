package record

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFuncName(t *testing.T) {
	for in, want := range map[string]string{
		"go.etcd.io/raft/v3.(*raft).loadState":                 "raft.(*raft).loadState",
		"github.com/demi-project/demi/examples/raft.assertf":   "raft.assertf",
		"github.com/x/y/v2/sub.F":                              "sub.F",
		"example.com/mod/v12.(*T).M.func1":                     "mod.(*T).M.func1",
		"main.main":                                            "main.main",
		"github.com/demi-project/demi/record_test.TestX.func1": "record_test.TestX.func1",
		"github.com/a/vendor.F":                                "vendor.F",
		"github.com/a/v.F":                                     "v.F",
	} {
		assert.Equal(t, want, funcName(in), in)
	}
}

func TestPanicHelper(t *testing.T) {
	assert.True(t, panicHelper("log.(*Logger).Panicf"))
	assert.True(t, panicHelper("github.com/x/etcdraft.logger.Fatalf"))
	assert.False(t, panicHelper("go.etcd.io/raft/v3.(*raft).loadState"))
	assert.False(t, panicHelper("main.PanicAttack"))
}

type keyedPanic struct{}

func (keyedPanic) Error() string            { return "commit 12 is out of range [1, 5]" }
func (keyedPanic) PanicFingerprint() string { return "commit %d is out of range [%d, %d]" }

// logf panics on behalf of its caller, as a logger's Panicf does.
type logf struct{}

func (logf) Panicf(v any) { panic(v) }

func TestPanicViolationUsesTheHookAndSkipsHelpers(t *testing.T) {
	var v *Violation
	func() {
		defer func() { v = panicViolation(recover(), "a", 3) }()
		loadState()
	}()
	assert.Equal(t, "panic: commit %d is out of range [%d, %d] @ record.loadState", v.Fingerprint)
	assert.Contains(t, v.Detail, "actor a panicked: commit 12 is out of range [1, 5] (at record.loadState, panic_internal_test.go:")
	assert.Equal(t, 3, v.Event)
}

func loadState() { logf{}.Panicf(keyedPanic{}) }
