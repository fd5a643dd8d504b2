//go:build !linux

package sdk

func nonDumpable() error { return nil }

// NonDumpable is what Serve does first; nothing outside Linux.
func NonDumpable() error { return nil }

func nameProcess() {}
