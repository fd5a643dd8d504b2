// Package approval decides whether an assessed call may run: blocks and
// deny policies first, then the operator's rules, auto policy, session
// allows, and finally an approval provider (a terminal prompt, or deny when
// nobody can answer).
//
// Session allows are bound to the caller's authority fingerprint and to the
// call's subject fingerprint, and expire; a deny rule always wins over an
// allow; nothing here can turn a deny policy or a block into an allow.
package approval
