package record

// Violation is a broken invariant (or a panicking handler).
type Violation struct {
	// Fingerprint decides "same bug": two violations with equal
	// fingerprints are the same failure (see Same). It should name the
	// invariant and the actors involved, not the exact state.
	Fingerprint string `msgpack:"fingerprint" json:"fingerprint"`
	// Detail explains this occurrence for a person.
	Detail string `msgpack:"detail" json:"detail"`
	// Event is the index of the event after which it was detected.
	Event int `msgpack:"event" json:"event"`
}

func (v *Violation) String() string {
	if v == nil {
		return "no violation"
	}
	return v.Fingerprint + ": " + v.Detail
}

// Same reports whether v and w are the same bug: both present and with
// equal fingerprints. It is the one definition of "same violation" demi
// uses: replay's "reproduced", minimization's and the optimum search's
// targets all go through it.
func (v *Violation) Same(w *Violation) bool {
	return v != nil && w != nil && v.Fingerprint == w.Fingerprint
}

// Want returns the violation to look for given its fingerprint (as a
// command line or a Config names it), or nil for "" (no particular one).
func Want(fingerprint string) *Violation {
	if fingerprint == "" {
		return nil
	}
	return &Violation{Fingerprint: fingerprint}
}
