package minimize

import (
	"testing"

	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
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
