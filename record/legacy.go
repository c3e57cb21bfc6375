package record

import (
	"strings"
)

// Fingerprints of older traces. A violation's fingerprint is the key that
// decides "same bug?" for replay, minimization and check, so a change to
// how demi fingerprints a violation must not turn an old trace's violation
// into "another bug" (and its check into a false "fixed"). Readers
// therefore bring the fingerprints of older traces to today's form when
// they can (migrateFingerprint), and keep the recorded form in
// Header.Legacy so that a command can say why a verdict on such a trace is
// uncertain when they cannot.
//
// The changes so far, all to panic fingerprints ("panic: MESSAGE @
// FUNCTION"), made without a format version bump:
//
//   - demi before e4e2229 ended them with the file and line,
//     "panic: MESSAGE @ raft.assertf (assert.go:12)": today's form drops
//     them (editing a file must not make a trace's violation another
//     bug). Migrated exactly by dropping the suffix.
//   - it also named a major-version package by its version element
//     ("v3.(*raft).loadState", now "raft.(*raft).loadState") and a
//     logger's Panicf where today's form names its caller, and fingerprinted
//     a PanicFingerprinter by its message: not recoverable from the old
//     fingerprint alone, so such a trace keeps Header.Legacy set and check
//     refuses to call it fixed when its replay ends in another panic.

// migrateFingerprint returns the fingerprint fp, recorded by an older
// demi, in today's form, and whether fp was in an older form.
func migrateFingerprint(fp string) (string, bool) {
	if !strings.HasPrefix(fp, "panic: ") {
		return fp, false
	}
	at := strings.LastIndex(fp, " @ ")
	if at < 0 || !strings.HasSuffix(fp, ")") {
		return fp, false
	}
	fn := fp[at+3:]
	open := strings.LastIndex(fn, " (")
	if open < 0 {
		return fp, false
	}
	file, line, ok := strings.Cut(fn[open+2:len(fn)-1], ":")
	if !ok || !strings.HasSuffix(file, ".go") || line == "" || strings.Trim(line, "0123456789") != "" {
		return fp, false
	}
	return fp[:at+3] + fn[:open], true
}

// migrate brings the header's violation to today's fingerprint form (see
// migrateFingerprint), keeping the recorded one in Legacy.
func (h *Header) migrate() {
	if h.Violation == nil {
		return
	}
	if fp, old := migrateFingerprint(h.Violation.Fingerprint); old {
		h.Legacy = h.Violation.Fingerprint
		v := *h.Violation
		v.Fingerprint = fp
		h.Violation = &v
	}
}
