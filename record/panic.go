package record

import (
	"fmt"
	"runtime"
	"strings"
)

// Panic capture. A panic in a handler halts the run and becomes its
// violation (Sim.Halted, Sim.Check); a panic in the invariant becomes an
// "invariant panic" violation. Both are recovered here, by the functions
// deferred around every handler call and every invariant check: they call
// recover only when the call did not return, since recover costs more than
// a cheap handler.

// recoverHandler is deferred around a handler call of the actor in sl.
func (s *Sim) recoverHandler(sl *slot, returned *bool) {
	if *returned {
		return
	}
	if r := recover(); r != nil {
		s.halted = panicViolation(r, sl.id, s.eventCount()-1)
		if ue, ok := r.(*UnregisteredError); ok && s.sysErr == nil {
			s.sysErr = ue
		}
	}
}

// recoverInvariant is deferred around an invariant check that stores its
// result in *v; it also sets the violation's event.
func (s *Sim) recoverInvariant(v **Violation, returned *bool) {
	if !*returned {
		if r := recover(); r != nil {
			*v = &Violation{Fingerprint: fmt.Sprintf("invariant panic: %v", r), Detail: fmt.Sprintf("the invariant itself panicked: %v", r)}
		}
	}
	if *v != nil {
		(*v).Event = s.eventCount() - 1
	}
}

// PanicFingerprinter is implemented by panic values that know which part
// of their message names the failure, such as a library logger's panic
// whose message holds run-specific numbers (indices, terms): the
// violation's fingerprint uses PanicFingerprint (for example the format
// string), its detail the full message. Other panic values are
// fingerprinted by their whole message.
type PanicFingerprinter interface {
	PanicFingerprint() string
}

// panicViolation turns a recovered panic into a violation. The
// fingerprint names the panic's message and the function that panicked,
// "panic: MESSAGE @ package.function", never the file line (editing a file
// must not make a trace's violation another bug); the detail adds the
// actor, the file and the line.
func panicViolation(r any, id ActorID, event int) *Violation {
	msg := fmt.Sprint(r)
	if err, ok := r.(error); ok {
		msg = err.Error()
	}
	key := msg
	if p, ok := r.(PanicFingerprinter); ok {
		key = p.PanicFingerprint()
	}
	fn, file, line := panicLocation()
	return &Violation{
		Fingerprint: "panic: " + key + " @ " + fn,
		Detail:      fmt.Sprintf("actor %s panicked: %s (at %s, %s:%d)", id, msg, fn, file, line),
		Event:       event,
	}
}

// panicLocation finds the function that panicked: the first frame after
// the runtime's panic machinery that is not a helper panicking on behalf of
// its caller (a logger's Panicf, Fatalf, …). It returns the function as
// package.function (see funcName), the file's base name and the line.
func panicLocation() (fn, file string, line int) {
	pcs := make([]uintptr, 48)
	n := runtime.Callers(3, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	afterPanic := false
	for {
		f, more := frames.Next()
		switch {
		case strings.HasPrefix(f.Function, "runtime."):
			if f.Function == "runtime.gopanic" || strings.HasPrefix(f.Function, "runtime.panic") {
				afterPanic = true
			}
		case afterPanic && !panicHelper(f.Function):
			file := f.File
			if i := strings.LastIndexByte(file, '/'); i >= 0 {
				file = file[i+1:]
			}
			return funcName(f.Function), file, f.Line
		}
		if !more {
			return "unknown location", "?", 0
		}
	}
}

// panicHelper reports whether function is a helper that panics for its
// caller: a method or function named Panic, Panicf, Panicln, Fatal, Fatalf
// or Fatalln (the logging convention of log and of most libraries'
// loggers).
func panicHelper(function string) bool {
	name := function[strings.LastIndexByte(function, '.')+1:]
	switch name {
	case "Panic", "Panicf", "Panicln", "Fatal", "Fatalf", "Fatalln":
		return true
	}
	return false
}

// funcName shortens a runtime function name to package.function: the
// import path is cut to its last element, and a major-version element
// (go.etcd.io/raft/v3) gives way to the element before it, which is the
// package's name by Go convention: "go.etcd.io/raft/v3.(*raft).loadState"
// becomes "raft.(*raft).loadState".
func funcName(function string) string {
	slash := strings.LastIndexByte(function, '/')
	rest := function[slash+1:] // "v3.(*raft).loadState" or "pkg.Func"
	dot := strings.IndexByte(rest, '.')
	if slash < 0 || dot < 0 || !majorVersion(rest[:dot]) {
		return rest
	}
	prefix := function[:slash]
	return prefix[strings.LastIndexByte(prefix, '/')+1:] + rest[dot:]
}

// majorVersion reports whether elem is a module major-version path
// element: v2, v3, …
func majorVersion(elem string) bool {
	if len(elem) < 2 || elem[0] != 'v' {
		return false
	}
	for _, c := range elem[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
