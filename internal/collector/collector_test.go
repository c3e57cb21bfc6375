package collector_test

import (
	"testing"

	"github.com/demi-project/demi/internal/collector"
	"github.com/stretchr/testify/assert"
)

func TestPercent(t *testing.T) {
	for d, want := range map[int]int{0: 800, 1930: 800, 4999: 800, 5000: 400, 116000: 400} {
		assert.Equal(t, want, collector.Percent(d), "%d deliveries", d)
	}
}
