package record

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escape makes s safe to print on a terminal: printable text (any script)
// is kept as is; control characters, invalid UTF-8 and other unprintable
// runes are written as Go escapes (\n, \x1b, \u200b). Message contents,
// actor IDs and timer keys come from traces, which are untrusted input:
// everything demi prints of them goes through Escape (FormatMessage and
// Event.String already do).
func Escape(s string) string {
	clean := true
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || !unicode.IsPrint(r) && r != ' ' {
			clean = false
			break
		}
		i += n
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(`\x`)
			b.WriteString(strconv.FormatUint(uint64(s[i])>>4, 16))
			b.WriteString(strconv.FormatUint(uint64(s[i])&15, 16))
		case unicode.IsPrint(r) || r == ' ':
			b.WriteString(s[i : i+n])
		default:
			q := strconv.QuoteRune(r) // '\n', '\x1b', '\u200b'
			b.WriteString(q[1 : len(q)-1])
		}
		i += n
	}
	return b.String()
}

// Quote is strconv.Quote: a double-quoted Go string literal, with every
// control character and invalid byte escaped.
func Quote(s string) string { return strconv.Quote(s) }
