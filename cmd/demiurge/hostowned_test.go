package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestStateInsideWorkspaceReadOnly: the operator keeps the state inside
// the workspace (a --state under the checkout, or the default state when
// the workspace is the home directory). An approved command in
// workspace-write can neither write it nor move it aside and put another
// in its place; its own HOME (the runtime home inside the state) stays
// writable.
func TestStateInsideWorkspaceReadOnly(t *testing.T) {
	builtin, _ := testPlugins(t)
	bin := demiurgeBinary(t)
	ws := t.TempDir()
	state := filepath.Join(ws, "state")
	run := func(command string) string {
		cmd := exec.Command(bin, "--state", state, "--plugin-dir", builtin, "--workspace", ws, "--sandbox", "workspace-write",
			"--approve", "allow:terminal", "tools", "call", "terminal", `{"command":`+strconv.Quote(command)+`}`)
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	run("true") // makes the state
	for _, c := range []string{
		`echo evil > state/planted`,
		`mv state state-old; mkdir state; echo evil > state/planted`,
		`mkdir -p state/plugins && echo evil > state/plugins/demiurge-toolset-x`,
	} {
		out := run(c)
		for _, p := range []string{"state/planted", "state/plugins/demiurge-toolset-x", "state-old"} {
			if _, err := os.Lstat(filepath.Join(ws, p)); err == nil {
				t.Fatalf("%q made %s:\n%s", c, p, out)
			}
		}
	}
	if out := run(`echo mine > "$HOME/note" && cat "$HOME/note"`); !strings.Contains(out, "mine\n") {
		t.Errorf("the command's HOME inside the state is not writable:\n%s", out)
	}
}

// TestStateInsideWorkspaceUnreadable: with the state inside the workspace,
// a command the host runs in its sandbox (each mode the model can reach)
// reads nothing of it: not the token beside the host socket (with which
// a process outside the host's tree would be a front end), not the store
// of every session, the keys or the logs, nor another command's home. Its
// own HOME there stays readable and writable.
func TestStateInsideWorkspaceUnreadable(t *testing.T) {
	e := newHostEnv(t)
	e.state = filepath.Join(e.ws, "state")
	token := filepath.Join(e.state, "runtime", "host.sock.token")
	other := filepath.Join(e.state, "runtime", "sandbox-home", "someone-else")
	for _, mode := range []string{"workspace-write", "read-only"} {
		probe := "for f in " + token + " " + filepath.Join(e.state, "demiurge.db") + " " + filepath.Join(e.state, "logs", "host.log") +
			" " + filepath.Join(other, "secret") + "; do printf '%s:' $f; head -c 64 $f 2>/dev/null | wc -c; done; " +
			"echo mine > $TMPDIR/n && cat $TMPDIR/n; ls $HOME >/dev/null && echo home-ok"
		args := `{"command":` + strconv.Quote(probe) + `}`
		e.stopHost(t)
		if out, stderr, err := e.runHost(t, "tools", "call", "read_file", `{"path":"a.txt"}`); err != nil {
			t.Fatalf("%v\n%s%s", err, out, stderr)
		}
		if err := os.MkdirAll(other, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(other, "secret"), []byte("another command's\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(token); err != nil || len(b) == 0 {
			t.Fatalf("no token beside the host socket: %v", err)
		}
		out, stderr, err := e.runHost(t, "--sandbox", mode, "--approve", "allow:terminal", "tools", "call", "terminal", args)
		if err != nil {
			t.Fatalf("%s: %v\n%s%s", mode, err, out, stderr)
		}
		if !strings.Contains(stderr+out, "sandbox: "+mode) || !strings.Contains(out, "mine\nhome-ok") {
			t.Fatalf("%s: the probe did not run sandboxed with its home:\n%s%s", mode, out, stderr)
		}
		for _, line := range strings.Split(out, "\n") {
			if i := strings.LastIndexByte(line, ':'); i > 0 && strings.HasPrefix(line, e.state) && strings.TrimSpace(line[i+1:]) != "0" {
				t.Errorf("%s: a sandboxed command read %s", mode, line)
			}
		}
	}
}

// TestStateMadeWhileACommandRunsStaysUnreadable: what the host creates in
// a state inside the workspace after a sandboxed command started (a new
// directory, a new file) or replaces there by a rename (a token written
// anew, a rotated log) is as unreadable to the command as what was there
// at its start; and what hides it takes no write, which would be lost.
func TestStateMadeWhileACommandRunsStaysUnreadable(t *testing.T) {
	e := newHostEnv(t)
	e.state = filepath.Join(e.ws, "state")
	token := filepath.Join(e.state, "runtime", "host.sock.token")
	log := filepath.Join(e.state, "logs", "host.log")
	late := []string{filepath.Join(e.state, "late", "secret"), filepath.Join(e.state, "late-file"), token, log}
	if out, stderr, err := e.runHost(t, "tools", "call", "read_file", `{"path":"a.txt"}`); err != nil {
		t.Fatalf("%v\n%s%s", err, out, stderr)
	}
	tokenBytes, err := os.ReadFile(token)
	if err != nil || len(tokenBytes) == 0 {
		t.Fatalf("no token beside the host socket: %v", err)
	}
	probe := `touch ready; i=0; while [ ! -e go ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done; ` +
		"for f in " + strings.Join(late, " ") + "; do printf '%s:' $f; head -c 64 $f 2>/dev/null | wc -c; done; " +
		"(echo x > " + filepath.Join(e.state, "planted") + ") 2>/dev/null && echo the-cover-took-a-w''rite" // the marker is not in the echoed command
	type result struct {
		out, stderr string
		err         error
	}
	done := make(chan result, 1)
	go func() {
		out, stderr, err := e.runHost(t, "--sandbox", "workspace-write", "--approve", "allow:terminal", "tools", "call", "terminal",
			`{"command":`+strconv.Quote(probe)+`}`)
		done <- result{out, stderr, err}
	}()
	for i := 0; ; i++ {
		if _, err := os.Stat(filepath.Join(e.ws, "ready")); err == nil {
			break
		}
		if i == 600 {
			t.Fatal("the sandboxed probe never started")
		}
		time.Sleep(50 * time.Millisecond)
	}
	write := func(path string, b []byte) { // as the host writes its files: a new name renamed over the old
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path+".new", b, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(path+".new", path); err != nil {
			t.Fatal(err)
		}
	}
	write(late[0], []byte("made after the command started\n"))
	write(late[1], []byte("made after the command started\n"))
	write(token, tokenBytes)
	write(log, []byte("a log rotated while the command ran\n"))
	if err := os.WriteFile(filepath.Join(e.ws, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil || !strings.Contains(r.out, late[0]+":") {
		t.Fatalf("the probe did not run: %v\n%s%s", r.err, r.out, r.stderr)
	}
	for _, line := range strings.Split(r.out, "\n") {
		if i := strings.LastIndexByte(line, ':'); i > 0 && strings.HasPrefix(line, e.state) && strings.TrimSpace(line[i+1:]) != "0" {
			t.Errorf("a sandboxed command read %s", line)
		}
	}
	if strings.Contains(r.out, "the-cover-took-a-write") { // it would be lost at the command's end
		t.Errorf("what hides the state took a write:\n%s", r.out)
	}
}
