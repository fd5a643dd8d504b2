//go:build unix

package core

import (
	"path/filepath"
	"syscall"
	"testing"
)

// TestLoadFIFODoesNotBlock: a FIFO named agent.yaml is refused at once,
// not read until some writer appears.
func TestLoadFIFODoesNotBlock(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, FileName), 0o644); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	_, err := Load(dir)
	wantLoadError(t, err, "", "is not a regular file")
}
