//go:build !linux

package procfd

// CloseOnExecAbove2 does nothing where the host does not run sandboxed
// commands (the sandbox is Linux only).
func CloseOnExecAbove2() error { return nil }
