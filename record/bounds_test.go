package record_test

import (
	"testing"

	"github.com/demi-project/demi/record"
	"github.com/stretchr/testify/assert"
)

func TestEventStringEscapes(t *testing.T) {
	e := record.Event{Kind: record.Deliver, ID: 3, From: "a\x1b", To: "b", Msg: "hi\xff\n", Cause: -1}
	assert.Equal(t, `"deliver #3 a\x1b→b stringhi\xff\n"`, e.String())
	assert.Equal(t, `"timer t\a fires at b: stringx"`, record.Event{Kind: record.Deliver, Timer: "t\a", To: "b", Msg: "x"}.String())
}

func TestResolveBounds(t *testing.T) {
	sys := &record.System{Name: "s", Options: []record.OptionSpec{
		{Name: "n", Default: "3", Min: 1, Max: 9},
		{Name: "free", Default: "0"},
	}}
	for _, tc := range []struct {
		given record.Options
		err   string
	}{
		{record.Options{"n": "1"}, ""},
		{record.Options{"n": "9"}, ""},
		{record.Options{"n": "0"}, "option n=0 is out of range: system s accepts 1 to 9"},
		{record.Options{"n": "10"}, "option n=10 is out of range: system s accepts 1 to 9"},
		{record.Options{"n": "-3"}, "option n=-3 is out of range: system s accepts 1 to 9"},
		{record.Options{"n": "99999999999999999999"}, `option n: "99999999999999999999" is not an integer`},
		{record.Options{"free": "-100000000"}, ""},
		{record.Options{"n\x1b": "1"}, `system s has no option "n\x1b"`},
	} {
		_, err := sys.Resolve(tc.given)
		if tc.err == "" {
			assert.NoError(t, err, "%v", tc.given)
		} else {
			assert.EqualError(t, err, tc.err)
		}
	}
	assert.True(t, sys.Options[0].Bounded())
	assert.False(t, sys.Options[1].Bounded())
}
