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
		{Name: "free", Default: "0", Min: -5, Max: 5},
		{Name: "udp", Default: "false"},
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
		{record.Options{"free": "-100000000"}, "option free=-100000000 is out of range: system s accepts -5 to 5"},
		{record.Options{"n\x1b": "1"}, `system s has no option "n\x1b"`},
		{record.Options{"udp": "maybe"}, `option udp: "maybe" is not a boolean`},
		// Several bad options: the first by name, every time.
		{record.Options{"udp": "x", "n": "0", "free": "9", "zz": "1"}, "option free=9 is out of range: system s accepts -5 to 5"},
	} {
		for range 20 { // map order must not choose the error
			_, err := sys.Resolve(tc.given)
			if tc.err == "" {
				assert.NoError(t, err, "%v", tc.given)
			} else {
				assert.EqualError(t, err, tc.err)
			}
		}
	}
	assert.True(t, sys.Options[0].Bounded())
	assert.False(t, sys.Options[2].Bounded())
}

// An integer option without bounds is refused, whatever the values given:
// a system must say what it accepts before demi trusts a header with it.
func TestResolveRefusesUnboundedOptions(t *testing.T) {
	for _, tc := range []struct {
		spec record.OptionSpec
		err  string
	}{
		{record.OptionSpec{Name: "members", Default: "3"}, "system s: integer option members declares no bounds (set OptionSpec.Min and Max): demi does not trust values it cannot check"},
		{record.OptionSpec{Name: "members", Default: "0", Min: 1, Max: 5}, "system s: option members has default 0 outside its bounds 1 to 5"},
		{record.OptionSpec{Name: "members", Default: "3", Min: 5, Max: 1}, "system s: option members has default 3 outside its bounds 5 to 1"},
		{record.OptionSpec{Name: "mode", Default: "fast", Min: 1, Max: 5}, `system s: option mode states bounds but its default "fast" is not an integer`},
		{record.OptionSpec{Name: "b", Default: "0", Bug: true}, ""},
		{record.OptionSpec{Name: "b", Default: "no", Bug: true}, `system s: bug switch b has default "no", want true or false`},
		{record.OptionSpec{Name: "", Default: "false"}, "system s declares an option without a name"},
	} {
		sys := &record.System{Name: "s", Options: []record.OptionSpec{tc.spec}}
		_, err := sys.Resolve(nil)
		if tc.err == "" {
			assert.NoError(t, err)
			continue
		}
		assert.EqualError(t, err, tc.err)
		assert.EqualError(t, sys.CheckOptions(), tc.err)
	}
	dup := &record.System{Name: "s", Options: []record.OptionSpec{{Name: "x", Default: "a"}, {Name: "x", Default: "b"}}}
	assert.EqualError(t, dup.CheckOptions(), "system s declares option x twice")
}
