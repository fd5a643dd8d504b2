package redact

// Text replaces well-known credential formats in s (the token table) and
// makes it valid UTF-8: for text no call's secrets apply to, such as a
// launch preview or a connection's diagnostic.
func Text(s string) string { return validUTF8(applyTokens(s)) }

// TextOf replaces the given secrets' values, then well-known credential
// formats, in s: a file's text shown to the operator beside a call whose
// arguments (or session) hold those secrets.
func TextOf(s string, secrets []Secret) string { return newRedactor(secrets).text(s) }
