package minimize

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestLeadEnd: a follower at a size may run paceRatio times the steps the
// first start took to get below that size (at least minCallSteps), and
// without bound below the first start's result.
func TestLeadEnd(t *testing.T) {
	l := &minimizer{leadFrom: 10_000, lead: []PacePoint{
		{Steps: 1_000, Deliveries: 850, Externals: 50},
		{Steps: 40_000, Deliveries: 450, Externals: 50},
		{Steps: 90_000, Deliveries: 90, Externals: 10},
	}}
	assert.Equal(t, int64(10_000+minCallSteps), l.leadEnd(1000), "the floor")
	assert.Equal(t, int64(10_000+4*40_000), l.leadEnd(900))
	assert.Equal(t, int64(10_000+4*90_000), l.leadEnd(500))
	assert.Equal(t, int64(math.MaxInt64), l.leadEnd(100), "never below it")
}
