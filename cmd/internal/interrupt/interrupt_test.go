package interrupt

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// stuckWork, when set, makes the test binary a command whose work never
// looks at its context: it says when the first signal cancelled it and
// then blocks.
const stuckWork = "DEMIURGE_INTERRUPT_TEST_STUCK"

func TestMain(m *testing.M) {
	if os.Getenv(stuckWork) != "" {
		ctx, stop := Context(context.Background())
		defer stop()
		os.Stdout.WriteString("ready\n")
		<-ctx.Done()
		os.Stdout.WriteString("cancelled\n")
		select {} // stuck past its context
	}
	os.Exit(m.Run())
}

// TestASecondSignalEndsWorkThatIgnoresItsContext: the first SIGTERM
// cancels the work's context; work that never looks at it (a stuck step)
// is ended by a second signal, not left for SIGKILL.
func TestASecondSignalEndsWorkThatIgnoresItsContext(t *testing.T) {
	for _, second := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		cmd := exec.Command(os.Args[0], "-test.run", "^$")
		cmd.Env = append(os.Environ(), stuckWork+"=1")
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string, 2)
		go func() {
			buf := make([]byte, 64)
			for {
				n, err := out.Read(buf)
				if n > 0 {
					lines <- string(buf[:n])
				}
				if err != nil {
					close(lines)
					return
				}
			}
		}()
		waitFor := func(what string) {
			t.Helper()
			select {
			case l := <-lines:
				if l != what+"\n" {
					t.Fatalf("read %q, want %q", l, what)
				}
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("no %q", what)
			}
		}
		waitFor("ready")
		cmd.Process.Signal(syscall.SIGTERM)
		waitFor("cancelled")
		cmd.Process.Signal(second)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != second {
				t.Fatalf("after a second %v the work ended with %v, want death by that signal", second, err)
			}
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("a second %v did not end work that ignores its context", second)
		}
	}
}
