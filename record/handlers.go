package record

// Handler calls: every call into an actor (Start on start and
// crash-restart, Receive on a delivery) goes through call, with the shared
// Context pointed at the actor and a panic turned into the run's halting
// violation (see recoverHandler in panic.go).

// boot starts a fresh incarnation of the actor in sl.
func (s *Sim) boot(sl *slot) {
	s.own(sl)
	sl.incarnation++
	sl.rng = nil
	sl.actor = s.sys.New(sl.id, s.opts)
	if sl.actor != nil {
		s.up++
	}
	if st, ok := sl.actor.(Starter); ok {
		s.call(sl, st, "", nil)
	}
}

// call runs one handler of the actor in sl: st.Start when st is set, else
// Receive(from, msg).
func (s *Sim) call(sl *slot, st Starter, from ActorID, msg Message) {
	s.own(sl)
	returned := false
	defer s.recoverHandler(sl, &returned)
	ctx := s.enter(sl)
	if st != nil {
		st.Start(ctx)
	} else {
		sl.actor.Receive(ctx, from, msg)
	}
	returned = true
}

// own gives the run its own copy of sl's actor (see slot.own), keeping the
// first copy that failed as the run's ForkError.
func (s *Sim) own(sl *slot) {
	if err := sl.own(); err != nil && s.forkErr == nil {
		s.forkErr = err
	}
}

// enter points the shared Context at sl for one handler call.
func (s *Sim) enter(sl *slot) *Context {
	s.ctx.self = sl.id
	s.ctx.slot = sl
	s.ctx.event = s.eventCount() - 1
	return &s.ctx
}
