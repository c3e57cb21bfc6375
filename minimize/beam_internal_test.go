package minimize

import (
	"testing"

	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
