package step

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/demi-project/demi/record"
)

// plain has no Snapshot method: its state is read through reflection.
type plain struct {
	name    string
	count   int
	log     []int
	peers   map[string]bool
	next    *plain
	Exports string
}

func (*plain) Receive(*record.Context, record.ActorID, record.Message) {}

type snap struct{ m map[string]any }

func (*snap) Receive(*record.Context, record.ActorID, record.Message) {}
func (s *snap) Snapshot() any                                         { return s.m }

func TestCaptureSnapshotSortsKeys(t *testing.T) {
	st := Capture("a", &snap{m: map[string]any{"term": 3, "log": []string{"x"}, "role": "leader"}})
	require.True(t, st.Running)
	assert.False(t, st.Reflected)
	assert.Equal(t, []Field{
		{Name: "log", Short: "[x]", Full: "[x]"},
		{Name: "role", Short: "leader", Full: "leader"},
		{Name: "term", Short: "3", Full: "3"},
	}, st.Fields)
}

func TestCaptureReflectsUnexportedFields(t *testing.T) {
	p := &plain{name: "p", count: 2, log: []int{1, 2}, peers: map[string]bool{"b": true, "a": false}, Exports: ""}
	p.next = p // a cycle
	st := Capture("p", p)
	assert.True(t, st.Reflected)
	var got []string
	for _, f := range st.Fields {
		got = append(got, f.Name+"="+f.Short)
	}
	assert.Equal(t, []string{"name=p", "count=2", "log=[1 2]", "peers=map[a:false b:true]", "next=<cycle>", `Exports=""`}, got)
}

func TestCaptureNotRunning(t *testing.T) {
	st := Capture("x", nil)
	assert.Equal(t, State{Actor: "x"}, st)
}

func TestFoldingHugeState(t *testing.T) {
	log := make([]int, 1000)
	for i := range log {
		log[i] = i
	}
	m := map[int]string{}
	for i := 0; i < 50; i++ {
		m[i] = "v"
	}
	st := Capture("h", &snap{m: map[string]any{"log": log, "index": m, "name": strings.Repeat("x", 200)}})
	f, _ := st.Field("log")
	assert.Equal(t, "[0 1 2 …995 more… 998 999]", f.Short)
	assert.Len(t, strings.Fields(f.Full), 1000)
	f, _ = st.Field("index")
	assert.Equal(t, "map[0:v 1:v 10:v …45 more… 8:v 9:v]", f.Short)
	f, _ = st.Field("name")
	assert.Equal(t, shortWidth, len([]rune(f.Short)))
	assert.True(t, strings.HasSuffix(f.Short, "…"))
	assert.Len(t, f.Full, 200)
}

func TestFullRenderingIsBounded(t *testing.T) {
	big := make([]string, 100000)
	for i := range big {
		big[i] = fmt.Sprintf("entry-%d", i)
	}
	st := Capture("b", &snap{m: map[string]any{"big": big}})
	f, _ := st.Field("big")
	assert.LessOrEqual(t, len(f.Full), fullLimit+64)
	assert.True(t, strings.HasSuffix(f.Full, "… (truncated)]"), f.Full[len(f.Full)-40:])
}

type boom struct{}

func (boom) String() string { panic("no") }

func TestStringerPanicIsShown(t *testing.T) {
	st := Capture("b", &snap{m: map[string]any{"v": boom{}}})
	assert.Equal(t, "<String panicked: no>", st.Fields[0].Short)
}

func TestChanged(t *testing.T) {
	a := Capture("a", &snap{m: map[string]any{"term": 1, "log": []int{1}}})
	b := Capture("a", &snap{m: map[string]any{"term": 2, "log": []int{1}}})
	assert.Equal(t, map[string]bool{"term": true}, Changed(a, b))
	assert.Empty(t, Changed(a, a))
	assert.Equal(t, map[string]bool{"term": true, "log": true}, Changed(Capture("a", nil), b))
	// A change hidden by folding is still a change.
	long := make([]int, 100)
	long2 := make([]int, 100)
	long2[50] = 7
	c := Capture("a", &snap{m: map[string]any{"log": long}})
	d := Capture("a", &snap{m: map[string]any{"log": long2}})
	assert.Equal(t, c.Fields[0].Short, d.Fields[0].Short)
	assert.Equal(t, map[string]bool{"log": true}, Changed(c, d))
}

func TestContentsIgnoresStringer(t *testing.T) {
	assert.Equal(t, "{}", Contents(boom{}))
	assert.Equal(t, "{Serial:3 Hops:1}", Contents(struct{ Serial, Hops int }{3, 1}))
}
