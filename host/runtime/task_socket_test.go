package runtime

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTaskSocketAnswersLikeTheManager: another process's view of the live
// tasks, through the owner's socket, with the same scoping.
func TestTaskSocketAnswersLikeTheManager(t *testing.T) {
	m, _ := newManager(t)
	dir, err := os.MkdirTemp("", "ts") // a socket path must be short
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "tasks.sock")
	srv, err := m.Serve(path)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode: %v %v", fi.Mode(), err)
	}
	task, err := m.Start(context.Background(), ownerSpec, writeUntilCancelled)
	if err != nil {
		t.Fatal(err)
	}
	r, err := DialTasks(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if list, err := r.List(operator); err != nil || len(list) != 1 || list[0].ID != task.ID {
		t.Fatalf("remote list = %v, %v", list, err)
	}
	_, localErr := m.Get(otherUser, task.ID)
	_, remoteErr := r.Get(otherUser, task.ID)
	if !errors.Is(remoteErr, ErrTaskNotFound) || remoteErr.Error() != localErr.Error() {
		t.Fatalf("foreign id: remote %v, local %v", remoteErr, localErr)
	}
	got, timedOut, err := r.Wait(ctx, ownerScope, task.ID, 30*time.Millisecond)
	if err != nil || !timedOut || got.State.Terminal() {
		t.Fatalf("remote wait = %s timed out %v, %v", got.State, timedOut, err)
	}
	// Follow until the first chunk arrives (output is stored every 100 ms).
	var lines strings.Builder
	enough := errors.New("enough")
	err = r.Logs(ctx, ownerScope, task.ID, 0, true, func(c LogChunk) error { lines.Write(c.Data); return enough })
	if !errors.Is(err, enough) || !strings.HasPrefix(lines.String(), "line 0\n") {
		t.Fatalf("remote logs = %q, %v", lines.String(), err)
	}
	if got, err := r.Cancel(ctx, ownerScope, task.ID); err != nil || got.State != TaskCancelled {
		t.Fatalf("remote cancel = %s, %v", got.State, err)
	}
	if got, timedOut, err := r.Wait(ctx, ownerScope, task.ID, time.Second); err != nil || timedOut || got.State != TaskCancelled {
		t.Fatalf("remote wait after cancel = %s timed out %v, %v", got.State, timedOut, err)
	}
	srv.Close()
	if _, err := DialTasks(path); err == nil {
		t.Fatal("the socket still answers after Close")
	}
}
