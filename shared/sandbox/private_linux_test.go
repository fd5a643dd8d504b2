package sandbox

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestKeptUnderGivesBackOnlyTheCommandsOwnExistingPathsOutermostFirst:
// what is bound back under the cover of the state is the command's own
// paths strictly under it that exist and are not symlinks (a symlink's
// name could be replaced), each once: a path under another comes along
// with its clone.
func TestKeptUnderGivesBackOnlyTheCommandsOwnExistingPathsOutermostFirst(t *testing.T) {
	d := t.TempDir()
	home := filepath.Join(d, "runtime", "sandbox-home", "x")
	for _, dir := range []string{filepath.Join(home, "tmp"), filepath.Join(d, "real")} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(d, "real"), filepath.Join(d, "link")); err != nil {
		t.Fatal(err)
	}
	keep := []string{filepath.Join(home, "tmp"), home, filepath.Join(d, "link"), filepath.Join(d, "absent"), d, filepath.Dir(d), "/usr/bin"}
	if got, want := keptUnder(d, keep), []string{home}; !slices.Equal(got, want) {
		t.Fatalf("kept %v, want %v", got, want)
	}
}

// TestCoverPrivateRefusesASymlinkedStateAndCoversNothingElse: a state inside the
// workspace that is a symlink cannot be covered (the cover would lie on
// what it points at, and the name could be replaced): the command is
// refused, not run with the state in view. A state outside the workspace
// (Landlock grants nothing there) or given to the command whole is not
// covered.
func TestCoverPrivateRefusesASymlinkedStateAndCoversNothingElse(t *testing.T) {
	ws := t.TempDir()
	if err := os.Symlink(t.TempDir(), filepath.Join(ws, "state")); err != nil {
		t.Fatal(err)
	}
	err := inPrivateMounts(t, func() error {
		return coverPrivate(Policy{Workspace: ws, HostPrivate: []string{filepath.Join(ws, "state")}})
	})
	if err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Fatalf("a symlinked state was not refused: %v", err)
	}
	// Outside the workspace, or given to the command whole: nothing to
	// cover (a cover would hide the marker inside).
	outside, given := t.TempDir(), filepath.Join(ws, "given")
	if err := os.Mkdir(given, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, p := range []Policy{
		{Workspace: ws, HostPrivate: []string{outside}},
		{Workspace: ws, HostPrivate: []string{given}, Writable: []string{given}},
	} {
		marker := filepath.Join(p.HostPrivate[0], "marker")
		if err := os.WriteFile(marker, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		err := inPrivateMounts(t, func() error {
			if err := coverPrivate(p); err != nil {
				return err
			}
			_, err := os.Stat(marker)
			return err
		})
		if err != nil {
			t.Fatalf("%s (workspace %s, writable %v): %v", p.HostPrivate[0], ws, p.Writable, err)
		}
	}
}

// inPrivateMounts runs f on a thread of its own in a mount namespace of
// its own when the test runs as root, so that a cover this test should
// not have made (a mutant's) lands there and not on the machine; the
// thread ends with the goroutine. As another user a mount fails anyway.
func inPrivateMounts(t *testing.T, f func() error) error {
	t.Helper()
	if os.Geteuid() != 0 {
		return f()
	}
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread exits with its namespace
		if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
			errc <- err
			return
		}
		if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
			errc <- err
			return
		}
		errc <- f()
	}()
	return <-errc
}
