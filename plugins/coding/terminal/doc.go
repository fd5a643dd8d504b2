// Package terminal runs one shell command as an owned process tree and
// drains its output where it runs.
//
// Every command gets its own session and process group (Setsid). The spawn
// records the PID, the PGID, a unique spawn id and the OS start marker
// (field 22 of /proc/PID/stat); before any signal to the group the marker
// is checked again, so a PID the kernel has handed to someone else is never
// signalled. Timeout, cancellation, secret-binding expiry and Runner
// shutdown all end the whole tree the same way: TERM, a short grace, KILL.
//
// stdout and stderr are drained continuously. Each stream is redacted with
// the call's exact bound secrets (demiurge.dev/shared/redact) before
// anything else sees it, then written incrementally to a private artifact
// file, kept as a bounded tail with byte and character counts, and offered
// to the host in bounded chunks that never hold up the drain.
package terminal
