package worker

import (
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestWorkerSweepsInheritedDescriptors: a descriptor the worker inherited
// (here fd 3, as a launcher's ExtraFiles or the operator's shell leaves
// one) reaches no program the tool starts, through os.system or
// subprocess with close_fds=False, as shared/procfd keeps it from a Go
// plugin's children.
func TestWorkerSweepsInheritedDescriptors(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	c := pythonTool(t, `import os, subprocess

def execute(ctx, args):
    listed = subprocess.run(["/bin/sh", "-c", "ls /proc/$$/fd"], close_fds=False,
                            capture_output=True, text=True).stdout.split()
    os.system("ls /proc/$$/fd > fds.txt")
    with open("fds.txt") as f:
        system = f.read().split()
    return {"subprocess": listed, "system": system}
`)
	c.Wrap = func(cmd *exec.Cmd) error { cmd.ExtraFiles = []*os.File{w}; return nil }
	p := NewPool()
	defer p.Close()
	out, started, err := call(t, p, c, `{}`, &recordingHost{}, 20*time.Second)
	if err != nil || !started || out.Failed {
		t.Fatalf("call: %+v, %v, %v", out, started, err)
	}
	var got map[string][]string
	if err := json.Unmarshal(out.Value, &got); err != nil {
		t.Fatalf("value %s: %v", out.Value, err)
	}
	for how, fds := range got {
		if len(fds) == 0 {
			t.Fatalf("%s listed no descriptors (the probe is broken): %s", how, out.Value)
		}
		for _, fd := range fds {
			if n, _ := strconv.Atoi(fd); n == 3 {
				t.Errorf("the worker's inherited descriptor 3 reached a program started through %s: %s", how, strings.Join(fds, " "))
			}
		}
	}
}
