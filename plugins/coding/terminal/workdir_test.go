package terminal

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// workspaceWithOutside makes a workspace holding sub/ and a directory
// outside it, both with symlinks resolved.
func workspaceWithOutside(t *testing.T) (ws, sub, outside string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, outside = filepath.Join(base, "ws"), filepath.Join(base, "outside")
	sub = filepath.Join(ws, "sub")
	for _, d := range []string{sub, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return ws, sub, outside
}

// swapForSymlink moves dir aside and puts a symlink to target in its place.
func swapForSymlink(t *testing.T, dir, target string) {
	t.Helper()
	if err := os.Rename(dir, dir+".moved"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, dir); err != nil {
		t.Fatal(err)
	}
}

// TestSwapAfterCheckCannotMoveTheCommand swaps the checked directory for
// a symlink to outside the workspace after it was pinned and before the
// shell starts: the command must start in the directory that was checked.
func TestSwapAfterCheckCannotMoveTheCommand(t *testing.T) {
	for _, root := range []string{"with root", "without root"} {
		t.Run(root, func(t *testing.T) {
			ws, sub, outside := workspaceWithOutside(t)
			swapped := false
			testHookPinned = func() {
				if !swapped {
					swapped = true
					swapForSymlink(t, sub, outside)
				}
			}
			t.Cleanup(func() { testHookPinned = nil })
			req := Request{Command: "pwd -P; touch ran-here", Dir: sub}
			if root == "with root" {
				req.Root = ws
			}
			res, _ := run(t, quickRunner(), req)
			if !swapped {
				t.Fatal("the hook never ran: the test checks nothing")
			}
			if _, err := os.Stat(filepath.Join(outside, "ran-here")); err == nil {
				t.Fatal("the command ran outside the workspace")
			}
			if got := strings.TrimSpace(res.Stdout.Tail); got != sub+".moved" {
				t.Fatalf("the command ran in %q, want the checked directory (now %q)", got, sub+".moved")
			}
			if _, err := os.Stat(filepath.Join(sub+".moved", "ran-here")); err != nil {
				t.Fatalf("the command did not run in the checked directory: %v", err)
			}
		})
	}
}

// TestSwapBeforePinIsRefused: a symlink that stands in the checked path
// when it is opened (a swap between the check and the pin, or a path that
// was never resolved) refuses the call; nothing runs.
func TestSwapBeforePinIsRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		dir  func(ws, sub, outside string) string
		root bool
	}{
		{"leaf swapped, no root", func(ws, sub, outside string) string { return sub }, false},
		{"leaf swapped, with root", func(ws, sub, outside string) string { return sub }, true},
		{"below the swapped dir", func(ws, sub, outside string) string { return filepath.Join(sub, "deeper") }, true},
		{"dotdot out of the root", func(ws, sub, outside string) string { return filepath.Join(ws, "..", "outside") }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws, sub, outside := workspaceWithOutside(t)
			if err := os.Mkdir(filepath.Join(outside, "deeper"), 0o755); err != nil {
				t.Fatal(err)
			}
			swapForSymlink(t, sub, outside)
			req := Request{Command: "touch ran-here", Dir: tc.dir(ws, sub, outside), Env: testEnv(), ArtifactRoot: t.TempDir(), Timeout: 5 * time.Second}
			if tc.root {
				req.Root = ws
			}
			if _, err := quickRunner().Run(context.Background(), req); err == nil {
				t.Fatal("a directory reached through a symlink was started in")
			}
			for _, d := range []string{outside, filepath.Join(outside, "deeper")} {
				if _, err := os.Stat(filepath.Join(d, "ran-here")); err == nil {
					t.Fatalf("the command ran in %s", d)
				}
			}
		})
	}
}

// TestSwapRaceNeverEscapes hammers the swap from another goroutine while
// commands start, for a bounded time: no command may ever run outside.
func TestSwapRaceNeverEscapes(t *testing.T) {
	ws, sub, outside := workspaceWithOutside(t)
	stop := make(chan struct{})
	swapperDone := make(chan struct{})
	go func() {
		defer close(swapperDone)
		for {
			select {
			case <-stop:
				return
			default:
			}
			_ = os.Rename(sub, sub+".moved")
			_ = os.Symlink(outside, sub)
			_ = os.Remove(sub)
			_ = os.Rename(sub+".moved", sub)
		}
	}()
	rn := quickRunner()
	started, refused := 0, 0
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); {
		_, err := rn.Run(context.Background(), Request{Command: "touch ran-here", Dir: sub, Root: ws, Env: testEnv(), ArtifactRoot: t.TempDir(), Timeout: 5 * time.Second})
		if err != nil {
			refused++
		} else {
			started++
		}
		if _, err := os.Stat(filepath.Join(outside, "ran-here")); err == nil {
			close(stop)
			<-swapperDone
			t.Fatalf("a command ran outside the workspace after %d starts", started)
		}
	}
	close(stop)
	<-swapperDone
	t.Logf("%d commands started, %d refused while the directory was being swapped", started, refused)
	if started == 0 {
		t.Fatal("no command started: the race was not exercised")
	}
}
