// Package redact replaces exact secret values in text and in byte streams
// with <redacted:TARGET>. It is the small piece of redaction that a plugin
// needs where the bytes are produced (terminal output written to an
// artifact); the host stays the authority and redacts everything it receives
// again.
//
// Matching is byte-exact. A value that was transformed or encoded on its way
// out (base64, hex, split by escapes) is not recognised: that is outside the
// guarantee of an exact-value redactor.
//
// Values shorter than MinSecretLen bytes are ignored. Such a value is too
// short to be a real credential, and it would occur by chance all over
// ordinary output: replacing every "abc" or "1234" would shred the output
// and, by the pattern of replacements, tell a reader what the value was.
package redact
