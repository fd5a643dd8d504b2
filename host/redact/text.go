package redact

// Text replaces well-known credential formats in s (the token table) and
// makes it valid UTF-8: for text no call's secrets apply to, such as a
// launch preview or a connection's diagnostic.
func Text(s string) string { return validUTF8(applyTokens(s)) }
