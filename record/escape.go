package record

// Escape makes text from a trace safe to print on a terminal: s as it is
// when it is valid UTF-8 without control characters, and otherwise quoted
// the way strconv.Quote does. Message contents, actor IDs, timer keys and
// violation texts come from trace files, which are untrusted input: the
// command line prints them through Escape (Event.String and divergence
// reports already do).
func Escape(s string) string { return escape(s) }
