// Package untrusted marks what comes from outside the host before the
// model reads it: an envelope with the content's origin, bounded by a
// random boundary the content cannot close (envelope.go), and a screening
// for injection signals (screen.go) that flags and annotates, never drops.
// It is pure: no I/O, one pass over the text.
package untrusted
