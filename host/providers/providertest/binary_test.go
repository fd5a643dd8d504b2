package providertest

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServeBinary builds the providertest command and runs it as a
// process, as a testscript would: it prints its URL, answers the script,
// and exits 0 on SIGTERM.
func TestServeBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "providertest")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/providertest").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	script := filepath.Join(dir, "script.json")
	os.WriteFile(script, []byte(`[{"text":["from ","a process"],"stop":"end_turn"}]`), 0o644)
	cmd := exec.CommandContext(ctx, bin, "serve", "--kind", "anthropic", "--script", script)
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("no URL line: %v", err)
	}
	_, body := post(t, strings.TrimSpace(line)+"/v1/messages", `{"model":"m"}`)
	if !strings.Contains(body, `"text":"a process"`) || !strings.Contains(body, "event: message_stop") {
		t.Errorf("reply: %s", body)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit after SIGTERM: %v", err)
	}
}
