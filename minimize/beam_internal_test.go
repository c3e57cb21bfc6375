package minimize

import (
	"testing"

	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRouteOfMasksNamesAndNumbers(t *testing.T) {
	members := []string{"exec-10", "exec-3", "exec-1", "n1"}
	v := func(d string) *record.Violation { return &record.Violation{Fingerprint: "F", Detail: d} }
	assert.Equal(t, "app #: task # launched at NO_PREF on * (NO_PREF before NODE_LOCAL)",
		routeOf(v("app 9: task 0 launched at NO_PREF on exec-3 (NO_PREF before NODE_LOCAL)"), members))
	assert.Equal(t, routeOf(v("* and n1 led term 12"), members), routeOf(v("exec-10 and exec-1 led term 3"), members))
	assert.NotEqual(t, routeOf(v("app 9: task 0 launched at NO_PREF"), members), routeOf(v("app 3: task 1 launched at SPECULATIVE"), members))
	assert.Empty(t, routeOf(nil, members))
}

func TestSharedPrefixIsWhereAnOrderLeavingAPassOutParts(t *testing.T) {
	orders := removalOrders()
	first, leaving := orders[0], orders[3]
	require.Equal(t, []string{StageFifoInternals}, leaving.leaveOut, "the fourth order leaves fifo-internals out")
	trace := func() *record.Trace { return &record.Trace{} }
	prefixes := []prefix{{before: StageShrinkContents, best: trace()}, {before: StageFifoInternals, best: trace()}}

	p, ok := sharedPrefix(first, leaving, prefixes)
	require.True(t, ok)
	assert.Same(t, prefixes[1].best, p.best, "it starts before the first call of the pass it leaves out")

	p, ok = sharedPrefix(first, leaving, prefixes[:1])
	assert.True(t, ok)
	assert.Nil(t, p, "the first order never called the pass: the descent would be the same")

	for _, o := range orders[1:3] {
		_, ok := sharedPrefix(first, o, prefixes)
		assert.False(t, ok, "an order with other passes ahead shares nothing: %v", o.ahead)
	}
}
