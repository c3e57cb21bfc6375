package record

import (
	"fmt"
	"maps"
)

// WithOptions returns a copy of t whose header runs it with options changed:
// the header's own options, overridden by given (every option is written
// out, defaults included, as a recorded run's header has them). The result is validated
// against sys's declared options (an unknown name or a malformed value is an
// error naming it), its header's network is the one the new options choose,
// and it shares t's events, so replaying it re-executes the same schedule
// under the changed options: after a bug switch is turned off, for example,
// replay reports where the run leaves the schedule. t is not modified.
func (t *Trace) WithOptions(sys *System, given Options) (*Trace, error) {
	if sys.Name != t.Header.System {
		return nil, fmt.Errorf("the trace is of system %s, not %s", t.Header.System, sys.Name)
	}
	merged := t.Header.OptionMap()
	maps.Copy(merged, given)
	resolved, err := sys.Resolve(merged)
	if err != nil {
		return nil, err
	}
	out := &Trace{Header: t.Header, Events: t.Events}
	out.Header.Options = resolved.Pairs()
	out.Header.Network = sys.semantics(resolved).String()
	if v := t.Header.Violation; v != nil {
		vv := *v
		out.Header.Violation = &vv
	}
	return out, nil
}
