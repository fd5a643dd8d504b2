package hostclient

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// RuntimeDir is STATE/runtime, 0700.
func RuntimeDir(state string) string { return filepath.Join(state, "runtime") }

// SocketPath is the host socket of a state directory.
func SocketPath(state string) string { return filepath.Join(RuntimeDir(state), "host.sock") }

// LockPath is held (flock) by the running host for its whole life; it
// holds the host's pid.
func LockPath(state string) string { return filepath.Join(RuntimeDir(state), "host.lock") }

// StartLockPath serialises front ends that start a host.
func StartLockPath(state string) string {
	return filepath.Join(RuntimeDir(state), "host.start.lock")
}

// EnsureRuntimeDir makes STATE/runtime 0700 (and tightens an older one).
func EnsureRuntimeDir(state string) error {
	dir := RuntimeDir(state)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("state directory: %w", err)
	}
	return os.Chmod(dir, 0o700)
}

// Flock opens path and locks it; nonblocking reports a held lock as
// ErrLocked at once.
func Flock(path string, how int, nonblocking bool) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, err
	}
	if nonblocking {
		how |= syscall.LOCK_NB
	}
	for {
		err = syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrLocked
		}
		return nil, err
	}
	return f, nil
}

// ErrLocked is Flock's answer, nonblocking, when another holds the lock.
var ErrLocked = errors.New("locked")

// Running reports whether a host holds the state's lock now, and its pid
// as it wrote it.
func Running(state string) (pid int, running bool) {
	f, err := Flock(LockPath(state), syscall.LOCK_SH, true)
	if err == nil {
		f.Close()
		return 0, false
	}
	if !errors.Is(err, ErrLocked) {
		return 0, false
	}
	b, _ := os.ReadFile(LockPath(state))
	pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	return pid, true
}
