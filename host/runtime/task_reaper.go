package runtime

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"sync"
	"syscall"
	"time"
)

// ReaperArg, as the only argument, makes the host binary run as a task
// reaper (see RunReaper).
const ReaperArg = "__demiurge-task-reaper"

// Reaper is a helper process that ends a crashed host's background
// commands within moments of the crash. The host tells it which tasks run
// over a pipe; when the pipe closes (the kernel closes it whatever killed
// the host, SIGKILL included) it kills every process still marked with one
// of those tasks' ids (TaskEnvVar). A host that closes normally has ended
// and untracked its tasks first, so the reaper then finds nothing to do.
type Reaper struct {
	cmd *exec.Cmd

	mu  sync.Mutex
	w   io.WriteCloser
	err error
}

// StartReaper starts exe ReaperArg in its own process group, so that the
// operator's Ctrl-C reaches the host and not the reaper.
func StartReaper(exe string) (*Reaper, error) {
	cmd := exec.Command(exe, ReaperArg)
	cmd.Env = []string{} // nothing of the host's environment is needed
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	w, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("task reaper: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the task reaper %s: %w", exe, err)
	}
	return &Reaper{cmd: cmd, w: w}, nil
}

func (r *Reaper) track(id string)   { r.send('+', id) }
func (r *Reaper) untrack(id string) { r.send('-', id) }

func (r *Reaper) send(op byte, id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err == nil {
		_, r.err = fmt.Fprintf(r.w, "%c%s\n", op, id)
	}
}

// Close ends the reaper; any task still tracked has its processes killed.
func (r *Reaper) Close() error {
	r.mu.Lock()
	if r.err == nil {
		r.err = errors.New("closed")
	}
	r.w.Close()
	r.mu.Unlock()
	return r.cmd.Wait()
}

var taskIDForm = regexp.MustCompile(`^task_[0-9a-f]{20}$`)

// RunReaper is the reaper process's main: it follows +ID and -ID lines on
// in until in ends, then kills the processes of every task still tracked,
// again until a round finds none (a process may fork while it is killed).
// Interrupts are ignored: only the host's end ends the reaper.
func RunReaper(in io.Reader) int {
	signal.Ignore(os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	reapWhenDone(in)
	return 0
}

// reapWhenDone follows in and, once it ends, kills the processes of the
// tasks still tracked; it returns their PIDs.
func reapWhenDone(in io.Reader) []int {
	live := map[string]bool{}
	lines := bufio.NewScanner(in)
	for lines.Scan() {
		line := lines.Text()
		if len(line) < 2 || !taskIDForm.MatchString(line[1:]) {
			continue
		}
		switch line[0] {
		case '+':
			live[line[1:]] = true
		case '-':
			delete(live, line[1:])
		}
	}
	ids := make([]string, 0, len(live))
	for id := range live {
		ids = append(ids, id)
	}
	var killed []int
	for round := 0; round < 10; round++ {
		k := reapTaskProcesses(ids)
		if len(k) == 0 {
			break
		}
		killed = append(killed, k...)
		time.Sleep(20 * time.Millisecond)
	}
	return killed
}
