package counter_test

import (
	"fmt"
	"testing"

	"github.com/demi-project/demi/demitest"
	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"example.com/counter"
)

// TestCounter is the test a user of demi writes: fuzz the system inside
// go test, keep what fails under testdata/demi/TestCounter/.
func TestCounter(t *testing.T) {
	demitest.Check(t, counter.System(), demitest.Runs(30))
}

// failures is a testing.TB that records what demitest reports instead of
// failing the test, to look at the message a user would read.
type failures struct {
	testing.TB
	errs []string
}

func (f *failures) Helper()             {}
func (f *failures) Name() string        { return "TestForgetCount" }
func (f *failures) Logf(string, ...any) {}
func (f *failures) Errorf(format string, a ...any) {
	f.errs = append(f.errs, fmt.Sprintf(format, a...))
}

// TestTheFailureNamesThisModulesBinary checks demitest outside demi's
// module: with the bug on, the failure's commands run this module's own
// binary (cmd/counter, found by demitest), on the traces it kept.
func TestTheFailureNamesThisModulesBinary(t *testing.T) {
	f := &failures{TB: t}
	dir := t.TempDir()
	res := demitest.Check(f, counter.System(), demitest.Bugs("forget-count"), demitest.Runs(30), demitest.Dir(dir))
	require.Len(t, f.errs, 1)
	require.NotNil(t, res.Violation)
	assert.Equal(t, "backup-ahead", res.Violation.Fingerprint)
	msg := f.errs[0]
	assert.Contains(t, msg, "\n  replay:  go run ./cmd/counter replay "+res.Minimized+"\n", msg)
	assert.Contains(t, msg, "\n  step:    go run ./cmd/counter replay --step "+res.Minimized+"\n", msg)

	// The minimized trace is the bug and nothing else: two starts, an
	// add, its copy, the restart.
	tr, _, err := record.ReadFile(res.Minimized, record.NewCatalog(counter.System()))
	require.NoError(t, err)
	assert.Equal(t, 2, tr.Header.Deliveries, "the add and its copy")
}
