package record

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Semantics is the network's delivery order.
type Semantics uint8

const (
	// FIFO delivers messages between each sender-receiver pair in the order
	// they were sent, as TCP does.
	FIFO Semantics = iota
	// Unordered may deliver any pending message, as UDP may.
	Unordered
)

func (s Semantics) String() string {
	if s == Unordered {
		return "unordered"
	}
	return "fifo"
}

// System defines a distributed system that demi can run.
type System struct {
	// Name identifies the system in traces and on the command line.
	Name string
	// Doc is a one-line description shown by `demi systems`.
	Doc string
	// Options are the named options the system accepts (cluster size, bug
	// switches). Their values reach Members, New and the other hooks.
	Options []OptionSpec
	// Members lists the actors of a run, in a fixed order.
	Members func(o Options) []ActorID
	// New builds a fresh actor (on start and on crash-restart).
	New func(id ActorID, o Options) Actor
	// Messages registers one value of every message type the system sends
	// (pointer or value, as the system sends them), so traces can store them.
	Messages []Message
	// Invariant checks all actors' states and returns a violation or nil.
	Invariant func(v View) *Violation
	// Network returns the network semantics for the given options; nil
	// means FIFO.
	Network func(o Options) Semantics
	// Setup returns the external events every fuzz run starts with
	// (typically start events and bootstrap messages).
	Setup func(o Options) []Event
	// Externals are the random external events a fuzz run may inject.
	Externals []Generator
	// Conditions are named predicates for wait-until-condition markers.
	Conditions map[string]func(v View) bool
	// Fingerprint, if set, is the system's own message fingerprint: it
	// returns the string that decides whether two messages of different
	// runs are "the same message" (see package fingerprint), or false to
	// leave m to the default. Minimization, DPOR and check use it unless
	// their own configuration gives one, so a demi binary built with
	// cli.Main uses it too.
	Fingerprint func(m Message) (string, bool)
	// LowerBound, if set, is an admissible lower bound on what it still
	// costs to reach a violation from a state of a run (see Goal): the
	// optimum search (package optimal) does not expand a state whose bound
	// exceeds its budget left. Nil means 0: no pruning.
	LowerBound func(g Goal) int
	// Symmetry, if set, says which actors of a run are interchangeable
	// and how a schedule is relabelled (symmetry.go); minimization uses it
	// when a trace breaks the target's invariant with other actors first.
	// Nil: no actor is interchangeable.
	Symmetry *Symmetry
	// Swarm, if set, declares the ranges a swarm-mode fuzz run draws its
	// mix of faults and workload from (swarm.go); nil means DefaultSwarm.
	Swarm *SwarmSpec
	// Liveness, if set, is a bounded-liveness property the runtime checks
	// besides the invariant: after the last external fault, within N
	// deliveries, a predicate holds (liveness.go).
	Liveness *Liveness
	// Abstract, if set, maps a run's state onto an abstract state for
	// coverage-guided fuzzing (demi fuzz --mode coverage), as ModelFuzz
	// maps an implementation onto the variables of a TLA+ model: keep what
	// the protocol's correctness turns on (a Raft member's role, its term
	// relative to the others', its vote, the shape of its log) and leave
	// out payloads and ever-growing counters, so that the abstract states
	// are few and a new one means something. Nil: the default abstraction
	// of the members' snapshots (abstract.go).
	Abstract func(v View) string
	// Time, if set, returns the time model of a run with the given
	// options, or nil for none: with one, timers armed with a duration
	// (Context.SetTimerAfter) fire in deadline order on a virtual clock
	// and messages have a bounded delay (time.go). An option that turns
	// it on keeps it in the trace header like every other option.
	Time func(o Options) *TimeModel
}

// Generator makes one kind of random external event for fuzzing. Make
// returns false when the event makes no sense in the current state.
type Generator struct {
	Name   string
	Weight float64
	Make   func(r *rand.Rand, v View) (Event, bool)
	// Each, if set, lists the events Make could return in v, one of each
	// kind that differs only in what Make draws at random and the system
	// does not care about (the value of a client write, say), in a fixed
	// order. It is what System.Injections offers: minimization inserts
	// these events where the input never had them (inject.go). Nil:
	// Injections samples Make.
	Each func(v View) []Event
}

// OptionSpec declares one named option.
type OptionSpec struct {
	Name    string
	Default string
	Usage   string
	// Bug marks a bug switch: a boolean option that turns on one bug.
	Bug bool
	// Min and Max bound an integer option (both inclusive). Values read
	// from a trace header or a flag are untrusted: every integer option
	// (one whose Default is an integer and that is not a bug switch) must
	// state its bounds, so that a header with members=100000000 is refused
	// before anything is built. A system that declares an integer option
	// without bounds is refused by Resolve, and so by every command (see
	// CheckOptions). Both zero means no bounds declared.
	Min, Max int
}

// Bounded reports whether the option states bounds.
func (o OptionSpec) Bounded() bool { return o.Min != 0 || o.Max != 0 }

// Integer reports whether the option takes integer values: its default is
// an integer and it is not a bug switch.
func (o OptionSpec) Integer() bool {
	if o.Bug {
		return false
	}
	_, err := strconv.Atoi(o.Default)
	return err == nil
}

// CheckOptions checks the system's option declarations: names unique and
// not empty, every integer option bounded (Min <= Default <= Max), every
// other default a boolean or a string. It is the rule that keeps untrusted
// values out of a system: an integer option without bounds would let a
// trace header or a flag size a cluster at a million members, so a system
// that declares one is refused (by Resolve, hence by every command) until
// it states them.
func (s *System) CheckOptions() error {
	seen := map[string]bool{}
	for _, o := range s.Options {
		switch {
		case o.Name == "":
			return fmt.Errorf("system %s declares an option without a name", s.Name)
		case seen[o.Name]:
			return fmt.Errorf("system %s declares option %s twice", s.Name, o.Name)
		case o.Bug && !isBool(o.Default):
			return fmt.Errorf("system %s: bug switch %s has default %q, want true or false", s.Name, o.Name, o.Default)
		case o.Integer() && !o.Bounded():
			return fmt.Errorf("system %s: integer option %s declares no bounds (set OptionSpec.Min and Max): "+
				"demi does not trust values it cannot check", s.Name, o.Name)
		case o.Integer() && (o.Min > o.Max || o.Default != strconv.Itoa(min(max(o.Min, atoi(o.Default)), o.Max))):
			return fmt.Errorf("system %s: option %s has default %s outside its bounds %d to %d", s.Name, o.Name, o.Default, o.Min, o.Max)
		case !o.Integer() && o.Bounded():
			return fmt.Errorf("system %s: option %s states bounds but its default %q is not an integer", s.Name, o.Name, o.Default)
		}
		seen[o.Name] = true
	}
	return nil
}

func isBool(s string) bool { _, err := strconv.ParseBool(s); return err == nil }

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// Options holds option values by name. Use System.Resolve to fill defaults.
type Options map[string]string

// Int returns the option as an integer (0 if absent or malformed; Resolve
// validates values).
func (o Options) Int(name string) int { n, _ := strconv.Atoi(o[name]); return n }

// Bool reports whether the option is set to true.
func (o Options) Bool(name string) bool { b, _ := strconv.ParseBool(o[name]); return b }

// Pairs returns the options sorted by name, for stable encoding and display.
func (o Options) Pairs() []Option {
	out := make([]Option, 0, len(o))
	for k, v := range o {
		out = append(out, Option{Name: k, Value: v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// String renders the options as name=value pairs.
func (o Options) String() string {
	var parts []string
	for _, p := range o.Pairs() {
		parts = append(parts, p.Name+"="+p.Value)
	}
	return strings.Join(parts, ",")
}

// Option is one name=value pair.
type Option struct {
	Name  string `msgpack:"name" json:"name"`
	Value string `msgpack:"value" json:"value"`
}

// Resolve returns a complete set of options: the defaults overridden by
// given. Unknown names and malformed values are errors.
//
// The system's declarations are checked first (CheckOptions): a system
// with an integer option that declares no bounds is refused whatever the
// values. The given options are checked in name order, so that of several
// bad ones the same is named every time.
func (s *System) Resolve(given Options) (Options, error) {
	if err := s.CheckOptions(); err != nil {
		return nil, err
	}
	return s.resolve(given)
}

// resolve is Resolve on a system whose options are checked.
func (s *System) resolve(given Options) (Options, error) {
	out := Options{}
	for _, spec := range s.Options {
		out[spec.Name] = spec.Default
	}
	for _, p := range given.Pairs() {
		k, v := p.Name, p.Value
		i := slices.IndexFunc(s.Options, func(o OptionSpec) bool { return o.Name == k })
		if i < 0 {
			return nil, fmt.Errorf("system %s has no option %q", s.Name, k)
		}
		spec := s.Options[i]
		// Bug switches and "true"/"false" defaults are booleans; other
		// numeric defaults (including "0" and "1") are integers.
		if spec.Integer() {
			n, err := strconv.Atoi(v)
			if err != nil {
				return nil, fmt.Errorf("option %s: %q is not an integer", k, v)
			}
			if n < spec.Min || n > spec.Max {
				return nil, fmt.Errorf("option %s=%d is out of range: system %s accepts %d to %d", k, n, s.Name, spec.Min, spec.Max)
			}
		} else if isBool(spec.Default) {
			if !isBool(v) {
				return nil, fmt.Errorf("option %s: %q is not a boolean", k, v)
			}
		}
		out[k] = v
	}
	return out, nil
}

// Bugs lists the names of the system's bug switches.
func (s *System) Bugs() []string {
	var out []string
	for _, o := range s.Options {
		if o.Bug {
			out = append(out, o.Name)
		}
	}
	return out
}

func (s *System) semantics(o Options) Semantics {
	if s.Network == nil {
		return FIFO
	}
	return s.Network(o)
}

// MessageTypes maps registered type names to their Go types.
type MessageTypes struct {
	byName map[string]reflect.Type
	names  map[reflect.Type]string
}

// Types returns the registry of the system's message types.
func (s *System) Types() (*MessageTypes, error) {
	mt := &MessageTypes{byName: map[string]reflect.Type{}, names: map[reflect.Type]string{}}
	for _, m := range s.Messages {
		t := reflect.TypeOf(m)
		if t == nil {
			return nil, fmt.Errorf("system %s registers a nil message", s.Name)
		}
		name := TypeName(m)
		if prev, ok := mt.byName[name]; ok && prev != t {
			return nil, fmt.Errorf("system %s registers two message types named %s", s.Name, name)
		}
		mt.byName[name] = t
		mt.names[t] = name
	}
	return mt, nil
}

// Lookup returns the Go type registered under name.
func (mt *MessageTypes) Lookup(name string) (reflect.Type, bool) {
	t, ok := mt.byName[name]
	return t, ok
}

// Registered reports whether m's type is registered.
func (mt *MessageTypes) Registered(m Message) bool {
	_, ok := mt.names[reflect.TypeOf(m)]
	return ok
}

// TypeName is the name under which a message type is stored in traces and
// matched by fingerprints: the Go type name without package path, with a
// leading '*' for pointers.
func TypeName(m Message) string {
	t := reflect.TypeOf(m)
	if t == nil {
		return "<nil>"
	}
	if t.Kind() == reflect.Pointer {
		return "*" + t.Elem().Name()
	}
	return t.Name()
}

// Catalog is the set of systems a demi binary knows about.
type Catalog struct{ systems []*System }

// NewCatalog returns a catalog of the given systems.
func NewCatalog(systems ...*System) *Catalog {
	c := &Catalog{systems: slices.Clone(systems)}
	sort.Slice(c.systems, func(i, j int) bool { return c.systems[i].Name < c.systems[j].Name })
	return c
}

// Systems returns the systems sorted by name.
func (c *Catalog) Systems() []*System { return c.systems }

// Lookup finds a system by name.
func (c *Catalog) Lookup(name string) (*System, error) {
	for _, s := range c.systems {
		if s.Name == name {
			return s, nil
		}
	}
	var names []string
	for _, s := range c.systems {
		names = append(names, s.Name)
	}
	return nil, fmt.Errorf("unknown system %q (known: %s)", name, strings.Join(names, ", "))
}

// ChangedOptions lists the options of o that differ from the system's
// defaults, in declaration order, as a person reads them: a bug switch that
// is on by its name ("raft-45"), any other option as name=value.
func (s *System) ChangedOptions(o Options) []string {
	var parts []string
	for _, spec := range s.Options {
		if v, ok := o[spec.Name]; ok && v != spec.Default {
			if spec.Bug && v == "true" {
				parts = append(parts, spec.Name)
			} else {
				parts = append(parts, spec.Name+"="+v)
			}
		}
	}
	return parts
}
