package kvapp

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestStoreApply pins the commands an entry's data can hold, as Apply and
// the linearizability check's write order (both through command) read them.
func TestStoreApply(t *testing.T) {
	for _, c := range []struct {
		data string
		want Store
	}{
		{"set k v", Store{"k": "v", "x": "1"}},
		{"set k v w", Store{"k": "v w", "x": "1"}},
		{"set k ", Store{"k": "", "x": "1"}},
		{"set k", Store{"x": "1"}},
		{"del x", Store{}},
		{"del ", Store{"x": "1"}},
		{"del x y", Store{"x": "1"}},
		{"del", Store{"x": "1"}},
		{"", Store{"x": "1"}},
		{"get x", Store{"x": "1"}},
	} {
		kv := Store{"x": "1"}
		kv.Apply([]byte(c.data))
		assert.Equal(t, c.want, kv, "%q", c.data)
	}
}
