package eval

import (
	"runtime/debug"
	"testing"

	"github.com/demi-project/demi/internal/collector"
	"github.com/stretchr/testify/assert"
)

// TestCollectorIsTheCLIs checks that the studies minimize under the collector
// setting demi minimize uses for a trace of the same size (package collector).
func TestCollectorIsTheCLIs(t *testing.T) {
	for _, d := range []int{0, 300, 4999, 5000, 116000} {
		restore := cliCollector(d)
		assert.Equal(t, collector.Percent(d), debug.SetGCPercent(-1), "the setting in effect for %d deliveries", d)
		restore()
	}
	assert.Equal(t, 800, collector.Percent(1930), "a shipped trace's")
	assert.Equal(t, 400, collector.Percent(116000), "a long trace's")
}
