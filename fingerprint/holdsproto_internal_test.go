package fingerprint

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"go.etcd.io/raft/v3/raftpb"
)

// TestHoldsProto checks which message types Of copies to make them
// addressable: those holding a protobuf struct by value, directly, in a
// field or in an array, and no others (a pointer, slice or map element
// is reached addressable, or never as a protobuf struct, either way).
func TestHoldsProto(t *testing.T) {
	type plain struct {
		N    int
		S    []string
		M    map[string]int
		Next *plain
	}
	type byValue struct {
		N int
		M raftpb.Message
	}
	type nested struct{ In [2]byValue }
	type byPointer struct {
		M  *raftpb.Message
		Ms []raftpb.Message
		I  any
	}
	for _, c := range []struct {
		v    any
		want bool
	}{
		{plain{}, false}, {&plain{}, false}, {byPointer{}, false}, {&byValue{}, false}, {7, false},
		{byValue{}, true}, {nested{}, true}, {[1]nested{}, true},
	} {
		assert.Equal(t, c.want, holdsProto(reflect.TypeOf(c.v), 0), "%T", c.v)
	}
}
