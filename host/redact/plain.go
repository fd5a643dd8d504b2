package redact

import (
	"strings"
	"unicode/utf8"
)

// PlainText reports that s is its own redaction in a call without
// secrets: no token format's anchor stands in it and it is valid UTF-8,
// so the token table and the UTF-8 repair leave it as it is.
func PlainText(s string) bool {
	_, found := candidates(s)
	return !found && utf8.ValidString(s)
}

// PlainJSONText is PlainText for every key and string decoded from the
// JSON text s, which must hold no \u escape (the decoder that asks
// refuses those), asked once over the whole text instead of string by
// string (Raw.StructuredPlain). A decoded string is pieces of s between
// short escapes, joined by the one-byte characters they stand for: an
// anchor in it lies in one piece, and so in s, as no anchor holds such a
// character (anchorsHoldNoEscaped); and valid UTF-8 cut at ASCII bytes
// stays valid. Numbers are covered by numbersHoldNoToken, secret names by
// SecretName, key by key.
func PlainJSONText(s string) bool { return anchorsHoldNoEscaped && PlainText(s) }

// SecretName reports whether a key names a credential: its value is then
// replaced in every view.
func SecretName(k string) bool { return isSecretName(k) }

// anchorsHoldNoEscaped: no token format's anchor holds a character that
// JSON writes as an escape (a quote, a backslash, a slash, a control
// byte); PlainJSONText's reasoning needs it.
var anchorsHoldNoEscaped = func() bool {
	for _, k := range tokenTable {
		for _, a := range k.anchors {
			if strings.ContainsAny(a, "\"\\/\b\f\n\r\t") || strings.IndexFunc(a, func(r rune) bool { return r < 0x20 }) >= 0 {
				return false
			}
		}
	}
	return true
}()

// keptAsIs reports that Make may keep raw.Structured without walking it:
// its decoder found no secret name among its keys and its JSON text plain
// (Raw.StructuredPlain), and this call has no exact secret (the one thing
// neither asks about) and no token format that a number's text could
// hold.
func (r *redactor) keptAsIs(raw *Raw) bool {
	return raw.StructuredPlain && r.exact == noSecrets && numbersHoldNoToken
}
