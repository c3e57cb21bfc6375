package record

import "fmt"

// UnregisteredError reports a message of a type the system does not
// register (System.Messages): a trace could store it but no reader could
// decode it, so demi stops the run at the first Send or SetTimer of such a
// message, rather than writing a trace that cannot be read back.
type UnregisteredError struct {
	System string
	Actor  ActorID // the sender (External for an external event)
	Type   string  // TypeName of the message
}

func (e *UnregisteredError) Error() string {
	return fmt.Sprintf("system %s: %s sent a %s, a message type the system does not register (add a %s value to System.Messages)",
		e.System, e.Actor, e.Type, e.Type)
}

// registered reports whether m's type is one the system registers, by
// the registry System.Types builds (once per run, shared by its forks): the
// same answer a trace reader gives.
func (s *Sim) registered(m Message) bool { return s.types.Registered(m) }

// mustRegister panics with an *UnregisteredError when m's type is not
// registered; called in a handler, the panic halts the run (see
// recoverHandler) and the run's SystemError reports it.
func (s *Sim) mustRegister(from ActorID, m Message) {
	if !s.registered(m) {
		panic(&UnregisteredError{System: s.sys.Name, Actor: from, Type: TypeName(m)})
	}
}

// SystemError returns the error of a system that broke demi's contract in
// this run (a message of an unregistered type), or nil. Such a run's
// violation, a panic, is the system's mistake, not a bug to report: fuzz
// stops with this error instead of writing the trace.
func (s *Sim) SystemError() error {
	if s.sysErr == nil {
		return nil
	}
	return s.sysErr
}
