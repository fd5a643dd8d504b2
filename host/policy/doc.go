// Package policy holds the host's security decisions that need no I/O:
// capability grants and the gate, the authority a call runs under, and the
// effect assessment that turns a tool's declared subjects into risk,
// approval policy, reasons, resource keys and a call fingerprint.
//
// Everything here fails closed: an unknown capability, a malformed
// argument or a subject kind without an assessor makes a call stricter,
// never looser. Path checks are lexical; the plugin's os.Root boundary is
// what stops symlink escapes at run time.
package policy
