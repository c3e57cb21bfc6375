package record_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/demi-project/demi/record"
)

type stored struct {
	Log   []int
	Names map[string][]byte
	Next  *stored
	priv  []string
}

func TestStorageKeepsCopies(t *testing.T) {
	st := record.Storage{}
	v := &stored{Log: []int{1, 2}, Names: map[string][]byte{"a": []byte("x")}, priv: []string{"p"}}
	v.Next = v // a cycle
	st.Put("k", v)
	v.Log[0], v.Names["a"][0], v.priv[0] = 9, 'y', "q"

	got, ok := st.Get("k")
	require.True(t, ok)
	g := got.(*stored)
	assert.Equal(t, []int{1, 2}, g.Log, "Put stored a copy")
	assert.Equal(t, []byte("x"), g.Names["a"])
	assert.Equal(t, []string{"p"}, g.priv, "unexported fields are copied too")
	assert.Same(t, g, g.Next, "a cycle stays a cycle")
	assert.NotSame(t, v, g)

	g.Log[1] = 7
	again, _ := st.Get("k")
	assert.Equal(t, []int{1, 2}, again.(*stored).Log, "Get returned a copy")

	pm := wrapperspb.String("hello")
	st.Put("proto", pm)
	pm.Value = "changed"
	p, _ := st.Get("proto")
	assert.Equal(t, "hello", p.(*wrapperspb.StringValue).GetValue(), "protobuf messages are cloned")

	b := [][]byte{[]byte("e1")}
	st.Put("log", b)
	b[0][0] = 'X'
	l, _ := st.Get("log")
	assert.Equal(t, [][]byte{[]byte("e1")}, l)

	st.Delete("log")
	_, ok = st.Get("log")
	assert.False(t, ok)
}

type ghost struct{}

func (ghost) Start(ctx *record.Context) { ctx.Storage().Put("led", []uint64{3}) }
func (ghost) Receive(*record.Context, record.ActorID, record.Message) {
}

func TestViewStorageReadsGhostState(t *testing.T) {
	var seen []string
	sys := &record.System{
		Name:    "ghost",
		Members: func(record.Options) []record.ActorID { return []record.ActorID{"a", "b"} },
		New:     func(record.ActorID, record.Options) record.Actor { return ghost{} },
		Invariant: func(v record.View) *record.Violation {
			_, ok := v.Storage("nobody").Get("led")
			assert.False(t, ok, "an unknown actor has no storage")
			for _, id := range v.Members() {
				if led, ok := v.Storage(id).Get("led"); ok {
					seen = append(seen, string(id)+":"+v.Storage(id).Keys()[0])
					assert.Equal(t, []uint64{3}, led)
				}
			}
			return nil
		},
	}
	s, err := record.NewSim(sys, nil, 1)
	require.NoError(t, err)
	require.NoError(t, s.Apply(record.StartEvent("a")))
	require.NoError(t, s.Apply(record.KillEvent("a")))
	assert.Nil(t, s.Check())
	assert.Equal(t, []string{"a:led"}, seen, "a killed actor's storage is still readable; b has none")
}

// TestStorageCopiesByteLists checks the copy of a [][]byte (a log of
// encoded records): nil and empty records and lists are kept apart, and
// the records of a copy, which share one array, do not overwrite each
// other when one grows.
func TestStorageCopiesByteLists(t *testing.T) {
	st := record.Storage{}
	for _, l := range [][][]byte{nil, {}, {nil, {}, []byte("ab")}, {[]byte("e1"), []byte("e22"), nil}} {
		st.Put("log", l)
		got, _ := st.Get("log")
		g := got.([][]byte)
		require.Equal(t, l == nil, g == nil, "%q", l)
		require.Len(t, g, len(l))
		for i := range l {
			assert.Equal(t, l[i] == nil, g[i] == nil, "%q record %d", l, i)
			assert.Equal(t, string(l[i]), string(g[i]))
		}
	}
	got, _ := st.Get("log")
	g := got.([][]byte)
	g[0] = append(g[0], 'X')
	g[0][0] = 'Y'
	assert.Equal(t, [][]byte{[]byte("Y1X"), []byte("e22"), nil}, g)
	again, _ := st.Get("log")
	assert.Equal(t, [][]byte{[]byte("e1"), []byte("e22"), nil}, again)
}
