package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/demi-project/demi/record"
	"github.com/spf13/cobra"
)

// optionFlags are the flags that set a system's options: --opt name=value,
// --bug NAME and --no-bug NAME, each repeatable (or comma-separated). fuzz
// uses them to choose the options of new runs; replay, minimize, show and
// check use them to run a trace with options changed from its header.
type optionFlags struct {
	opts, bugs, noBugs []string
}

// register adds the flags to cmd. what completes the usage texts (" for
// the runs", " instead of the trace's").
func (f *optionFlags) register(cmd *cobra.Command, what string) {
	fs := cmd.Flags()
	fs.StringSliceVar(&f.bugs, "bug", nil, "bug switch to turn on"+what+" (repeatable)")
	fs.StringSliceVar(&f.noBugs, "no-bug", nil, "bug switch to turn off"+what+" (repeatable)")
	fs.StringSliceVar(&f.opts, "opt", nil, "option as name=value"+what+" (repeatable)")
}

// set reports whether any of the flags was given.
func (f *optionFlags) set() bool { return len(f.opts)+len(f.bugs)+len(f.noBugs) > 0 }

// options returns the options the flags give, checked against sys's
// declared options: an unknown bug switch or option, a malformed value or a
// switch both turned on and off is an error that names it.
func (f *optionFlags) options(sys *record.System) (record.Options, error) {
	given := record.Options{}
	bugs := sys.Bugs()
	for _, list := range [][]string{f.bugs, f.noBugs} {
		for _, b := range list {
			if !slices.Contains(bugs, b) {
				return nil, fmt.Errorf("system %s has no bug switch %q (known: %s)", sys.Name, b, strings.Join(bugs, ", "))
			}
		}
	}
	for _, b := range f.bugs {
		given[b] = "true"
	}
	for _, b := range f.noBugs {
		if given[b] == "true" {
			return nil, fmt.Errorf("--bug %s and --no-bug %s contradict each other", b, b)
		}
		given[b] = "false"
	}
	for _, kv := range f.opts {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--opt %q: want name=value", kv)
		}
		if prev, dup := given[k]; dup && prev != v {
			return nil, fmt.Errorf("--opt %s=%s contradicts %s=%s given before", k, v, k, prev)
		}
		given[k] = v
	}
	if _, err := sys.Resolve(given); err != nil {
		return nil, err
	}
	return given, nil
}

// apply returns t with the options the flags change (t itself when none
// is given); an unknown option or a malformed value is bad input.
func (f *optionFlags) apply(t *record.Trace, sys *record.System) (*record.Trace, error) {
	if !f.set() {
		return t, nil
	}
	given, err := f.options(sys)
	if err != nil {
		return nil, badInput(err)
	}
	out, err := t.WithOptions(sys, given)
	if err != nil {
		return nil, badInput(err)
	}
	return out, nil
}

// loadTraceWith reads a trace file and changes its options by the flags.
// Commands that run a trace (replay, show --rounds, replay --step, ...)
// call it instead of loadTrace.
func (e *env) loadTraceWith(ctx context.Context, path string, f *optionFlags) (*record.Trace, *record.System, error) {
	t, sys, err := e.loadTrace(ctx, path)
	if err != nil {
		return nil, nil, err
	}
	if t, err = f.apply(t, sys); err != nil {
		return nil, nil, err
	}
	return t, sys, nil
}

// describeChanges renders the options of t that differ from orig's (both
// resolved against sys's defaults), as "name=value, ..." in name order, or
// "" when none does.
func describeChanges(sys *record.System, orig, t *record.Trace) string {
	before, err := sys.Resolve(orig.Header.OptionMap())
	if err != nil {
		return ""
	}
	var parts []string
	for _, p := range t.Header.Options {
		if before[p.Name] != p.Value {
			parts = append(parts, p.Name+"="+p.Value)
		}
	}
	return strings.Join(parts, ", ")
}
