package examples_test

import (
	"testing"

	"github.com/demi-project/demi/examples"
	"github.com/stretchr/testify/assert"
)

// Every shipped system declares bounds for each of its integer options
// (record.System.CheckOptions): a trace header or a flag cannot size a
// cluster beyond them.
func TestCatalogOptionsAreBounded(t *testing.T) {
	for _, sys := range examples.Catalog().Systems() {
		assert.NoError(t, sys.CheckOptions(), sys.Name)
		for _, o := range sys.Options {
			if o.Integer() {
				assert.True(t, o.Bounded(), "%s option %s", sys.Name, o.Name)
			}
		}
	}
}
