package record_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/demi-project/demi/record"
)

// counter is a library's state that keeps a method value bound to itself,
// as etcd raft's raft keeps its tick function, behind a pointer.
type counter struct {
	n    int
	log  []int
	tick func()
}

func newCounter(fast bool) *counter {
	c := &counter{}
	c.tick = c.slow
	if fast {
		c.tick = c.fast
	}
	return c
}

func (c *counter) slow() { c.n++; c.log = append(c.log, c.n) }
func (c *counter) fast() { c.n += 10; c.log = append(c.log, c.n) }

// holder is an actor's value holding the library's state.
type holder struct {
	c    *counter
	fast bool
	// shallow makes DeepCopy share the method value (the reflective copy).
	shallow bool
}

func (h *holder) DeepCopy() any {
	if h.shallow {
		d := *h
		d.c = &counter{n: h.c.n, log: append([]int(nil), h.c.log...), tick: h.c.tick}
		return &d
	}
	d := &holder{c: newCounter(h.fast)}
	if err := record.CopyOnto(d, h); err != nil {
		panic(err)
	}
	return d
}

// TestCopyOnto: the copy holds the original's state, and its method value
// is bound to the copy, so ticking the copy leaves the original alone.
func TestCopyOnto(t *testing.T) {
	for _, fast := range []bool{false, true} {
		h := &holder{c: newCounter(fast), fast: fast}
		h.c.tick()
		h.c.tick()
		d := h.DeepCopy().(*holder)
		require.NoError(t, record.CheckDeepCopy(h))
		assert.Equal(t, h.c.n, d.c.n)
		n := h.c.n
		d.c.tick()
		assert.Equal(t, n, h.c.n, "the original did not tick")
		assert.Len(t, h.c.log, 2)
		assert.Len(t, d.c.log, 3)
		assert.Greater(t, d.c.n, n)
	}
}

// TestCopyOntoRefusesOtherFunctions: a donor whose function is another
// method than the original's (the wrong role) is an error naming the
// field, not a wrong copy.
func TestCopyOntoRefusesOtherFunctions(t *testing.T) {
	h := &holder{c: newCounter(true), fast: true}
	d := &holder{c: newCounter(false)}
	err := record.CopyOnto(d, h)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "record: CopyOnto *record_test.holder: .c.tick: the copy holds function github.com/demi-project/demi/record_test.(*counter).slow-fm where the original holds github.com/demi-project/demi/record_test.(*counter).fast-fm")
}

// TestCopyOntoRebindsMethodValues: without a donor, the copy's method
// value is the original's method bound to the copy's receiver, so ticking
// the copy leaves the original alone; a method value bound to memory the
// copy does not copy, or a closure, is still an error.
func TestCopyOntoRebindsMethodValues(t *testing.T) {
	for _, fast := range []bool{false, true} {
		h := &holder{c: newCounter(fast), fast: fast}
		h.c.tick()
		d := &holder{}
		require.NoError(t, record.CopyOnto(d, h))
		require.NotNil(t, d.c)
		n := h.c.n
		d.c.tick()
		assert.Equal(t, n, h.c.n, "the original did not tick")
		assert.Len(t, h.c.log, 1)
		assert.Equal(t, []int{n, 2 * n}, d.c.log)
	}
	outside := newCounter(false)
	h := &holder{c: &counter{tick: outside.slow}}
	err := record.CopyOnto(&holder{}, h)
	require.Error(t, err, "bound to a counter the copy does not copy")
	assert.Contains(t, err.Error(), ".c: holds a func() value")
	h = &holder{c: &counter{tick: func() { outside.n++ }}}
	err = record.CopyOnto(&holder{}, h)
	require.Error(t, err, "a closure")
	assert.Contains(t, err.Error(), ".c: holds a func() value")
}

// TestCheckDeepCopyFindsSharedMethodValue: a copy that shares a method
// value bound to the original fails the check.
func TestCheckDeepCopyFindsSharedMethodValue(t *testing.T) {
	h := &holder{c: newCounter(false), shallow: true}
	err := record.CheckDeepCopy(h)
	require.Error(t, err)
	assert.Equal(t, "record: *record_test.holder.DeepCopy shares memory with the value at .c.tick (github.com/demi-project/demi/record_test.(*counter).slow-fm)", err.Error())
}

// TestCopyOntoSharesProtoClones: a protocol buffer message held in two
// places is cloned once, and the copy holds the clone in both places, as
// the original holds the message.
func TestCopyOntoSharesProtoClones(t *testing.T) {
	type holder struct {
		a, b *wrapperspb.StringValue
		l    []*wrapperspb.StringValue
	}
	m, o := wrapperspb.String("m"), wrapperspb.String("o")
	src := &holder{a: m, b: m, l: []*wrapperspb.StringValue{o, m}}
	dst := &holder{}
	require.NoError(t, record.CopyOnto(dst, src))
	assert.NotSame(t, m, dst.a)
	assert.Same(t, dst.a, dst.b)
	assert.Same(t, dst.a, dst.l[1])
	assert.NotSame(t, o, dst.l[0])
	assert.Equal(t, "m", dst.a.GetValue())
	assert.Equal(t, "o", dst.l[0].GetValue())
}
