// Package webextract fetches one http(s) URL through the shared URL policy
// and returns its readable text: the main content of an HTML page (or the
// page itself when it is plain text), a title, and metadata that names only
// the final origin and the addresses connected to.
//
// Every request and redirect is checked by shared/netpolicy and dialled
// only at verified addresses. The body is read through a byte cap and the
// text through a character cap, both reported honestly. Failures a model
// can act on (refused targets, timeouts, HTTP errors, non-text content,
// redirect loops) come back as a Result with a Failure, never as a Go
// error or a panic.
//
// Test-only reach to loopback: Options.Policy carries netpolicy's
// Resolver and AllowLoopbackForTests hooks. Only the coding plugin's
// _test.go files set them; the plugin's production constructor passes the
// zero Options, reads no environment variable or configuration for them,
// and a model cannot reach them through any argument.
package webextract
