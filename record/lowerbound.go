package record

// Goal is what System.LowerBound is asked: how much must any run that
// continues from this state still spend before it shows a violation that
// is Want (Violation.Same)?
//
// The answer is a number of events: every delivery (a timer's too) counts
// one and, when CountExternals is set, so does every external event applied.
// It must be admissible: never more than the cheapest continuation that
// reaches Want really spends, in every state, whatever the external
// events, the schedule or the options. The optimum search cuts a state
// whose bound exceeds its budget left (as IDA* does), so a bound that is
// once too high makes the search miss the cheapest reproducer and call a
// larger one optimal. Any relaxation is safe: 0 always is, and a bound
// that does not recognise Want should return 0.
//
// A useful bound counts what the violation needs and nothing in the state
// provides yet: in Raft, two leaders of one term need each candidate's
// election timer and a Vote delivered to it for every vote it still
// lacks. Counting per receiver keeps a bound additive: every delivery has
// one receiver, so lower bounds on the deliveries to different actors add
// up.
type Goal struct {
	// View shows the actors' states.
	View View
	// InFlight is every pending message, timers included, in send order
	// (owned by the run: read it, do not keep it).
	InFlight []Pending
	// Want is the violation searched for.
	Want *Violation
	// Future is the external events that may still be applied, in order
	// (with CountExternals, any subsequence of them; without, all of
	// them). None other will be: an event it needs and Future lacks
	// makes the violation unreachable, which a bound answers with
	// Unreachable.
	Future []Event
	// CountExternals: external events count as cost too (an optimum
	// search over subsets of the external events).
	CountExternals bool
}

// Unreachable is what a lower bound answers for a violation no
// continuation reaches: a cost above any budget, and far from overflow
// when a bound adds up several.
const Unreachable = 1 << 20
