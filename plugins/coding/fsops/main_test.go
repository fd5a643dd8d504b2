package fsops

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if os.Getenv(rssChildEnv) != "" {
		os.Exit(runRSSChild())
	}
	goleak.VerifyTestMain(m)
}

// fixture is a workspace with an outside directory beside it, populated
// with every kind of file the boundary must handle.
type fixture struct {
	ws      *Workspace
	root    string // workspace directory
	outside string // a directory next to it, outside the boundary
}

func newFixture(t *testing.T, grants ...string) *fixture {
	t.Helper()
	base := t.TempDir()
	fx := &fixture{root: filepath.Join(base, "ws"), outside: filepath.Join(base, "outside")}
	mustMkdir(t, fx.root)
	mustMkdir(t, fx.outside)
	var gs []Grant
	for _, g := range grants {
		if !filepath.IsAbs(g) {
			g = filepath.Join(base, g)
		}
		gs = append(gs, Grant{Path: g})
	}
	ws, err := OpenWorkspace(fx.root, gs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	fx.ws = ws
	return fx
}

// in returns the absolute path of a workspace-relative name.
func (fx *fixture) in(rel string) string { return filepath.Join(fx.root, rel) }

func (fx *fixture) write(t *testing.T, rel, content string) string {
	t.Helper()
	p := fx.in(rel)
	mustMkdir(t, filepath.Dir(p))
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func (fx *fixture) symlink(t *testing.T, target, rel string) {
	t.Helper()
	mustMkdir(t, filepath.Dir(fx.in(rel)))
	if err := os.Symlink(target, fx.in(rel)); err != nil {
		t.Fatal(err)
	}
}

func (fx *fixture) fifo(t *testing.T, rel string) {
	t.Helper()
	if err := syscall.Mkfifo(fx.in(rel), 0o644); err != nil {
		t.Fatal(err)
	}
}

// socket leaves a unix socket file at rel; the listener is closed at cleanup.
func (fx *fixture) socket(t *testing.T, rel string) {
	t.Helper()
	l, err := net.Listen("unix", fx.in(rel))
	if err != nil {
		t.Skipf("unix socket: %v", err)
	}
	t.Cleanup(func() { l.Close() })
}

func mustMkdir(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
}

// within runs fn and fails the test if it has not returned by the
// deadline: opening a FIFO must never block.
func within[T any](t *testing.T, d time.Duration, fn func(ctx context.Context) (T, error)) (T, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	type out struct {
		v   T
		err error
	}
	ch := make(chan out, 1)
	go func() {
		v, err := fn(ctx)
		ch <- out{v, err}
	}()
	select {
	case o := <-ch:
		return o.v, o.err
	case <-time.After(d + time.Second):
		t.Fatalf("operation blocked for more than %v", d)
		var zero T
		return zero, nil
	}
}

func wantKind(t *testing.T, err, kind error) {
	t.Helper()
	if kind == nil {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	if !errors.Is(err, kind) {
		t.Fatalf("error = %v, want kind %v", err, kind)
	}
	var re *RefusedError
	if !errors.As(err, &re) {
		t.Fatalf("error %v is not a model-facing RefusedError", err)
	}
}
