package record

// Optional interfaces a message type may implement to help minimization and
// display. None is required; without them demi falls back to matching
// messages by type and content.

// Clocked is implemented by messages that carry a logical clock, such as
// Raft's term. Minimization groups deliveries by clock value and tries to
// remove a whole clock cluster at a time.
type Clocked interface {
	LogicalClock() int
}

// ClockAdvancer is implemented by messages (typically timers, such as an
// election timeout) whose delivery advances the receiver's logical clock.
type ClockAdvancer interface {
	AdvancesClock() bool
}

// Shrinkable is implemented by external messages whose content can be
// shrunk component by component, such as a bootstrap message's member
// list. Components returns how many components the message has;
// WithoutComponent returns a copy of the message without component i.
type Shrinkable interface {
	Components() int
	WithoutComponent(i int) Message
}

// Rounded is implemented by messages of communication-closed protocols:
// the round (e.g. term and message kind, as one increasing number) and the
// phase name the message belongs to. The round view of a trace uses it.
type Rounded interface {
	Round() (round int, phase string)
}
