package terminal

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
)

// ReaperEnv set to 1 makes a binary that calls MaybeRunReaper first thing
// in main act as the reaper instead of its usual self.
const ReaperEnv = "DEMIURGE_TERMINAL_REAPER"

// The reaper outlives a plugin that is killed outright (SIGKILL, or the
// host's Pdeathsig when the host dies), which then has no chance to end
// its process trees. It is a copy of the plugin's binary in a session of
// its own, reading "+PGID MARKER" and "-PGID" lines on stdin. When stdin
// ends, which the kernel does for it when the plugin dies, it sends KILL
// to every group still registered whose leader's start marker still
// matches (or whose leader is gone while members live), and exits.
//
// MaybeRunReaper runs the reaper and exits when this process was started
// as one; otherwise it returns at once.
func MaybeRunReaper() {
	if os.Getenv(ReaperEnv) != "1" {
		return
	}
	reap(os.Stdin)
	os.Exit(0)
}

// reap tracks the groups announced on r and kills the remaining ones when
// r ends.
func reap(r io.Reader) {
	groups := map[int]string{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "+"):
			f := strings.Fields(line[1:])
			if len(f) == 2 {
				if pgid, err := strconv.Atoi(f[0]); err == nil && pgid > 1 {
					groups[pgid] = f[1]
				}
			}
		case strings.HasPrefix(line, "-"):
			if pgid, err := strconv.Atoi(line[1:]); err == nil {
				delete(groups, pgid)
			}
		}
	}
	for pgid, marker := range groups {
		if checkMarker(pgid, marker) == nil {
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
		}
	}
}

// reaper is the plugin side: the pipe to a started reaper process.
type reaper struct {
	w   *os.File
	cmd *exec.Cmd
}

// startReaper starts exe as the reaper, in a session of its own (a kill
// of the plugin's process group must not take it along), with an empty
// environment but for ReaperEnv.
func startReaper(exe string) (*reaper, error) {
	rd, wr, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		rd.Close()
		wr.Close()
		return nil, err
	}
	cmd := &exec.Cmd{
		Path: exe, Args: []string{exe}, Env: []string{ReaperEnv + "=1"},
		Stdin: rd, Stdout: devnull, Stderr: devnull,
		SysProcAttr: &syscall.SysProcAttr{Setsid: true},
	}
	err = cmd.Start()
	rd.Close()
	devnull.Close()
	if err != nil {
		wr.Close()
		return nil, fmt.Errorf("start the terminal reaper %s: %w", exe, err)
	}
	go func() { _ = cmd.Wait() }() // reap it when it ends
	return &reaper{w: wr, cmd: cmd}, nil
}

// add and remove announce a group; errors are ignored because the reaper
// is a safety net behind the Runner's own cleanup, not a part of it.
func (r *reaper) add(pgid int, marker string) {
	if r != nil {
		_, _ = fmt.Fprintf(r.w, "+%d %s\n", pgid, marker)
	}
}

func (r *reaper) remove(pgid int) {
	if r != nil {
		_, _ = fmt.Fprintf(r.w, "-%d\n", pgid)
	}
}

// close ends the reaper: with every group removed first, it has nothing
// to kill.
func (r *reaper) close() {
	if r != nil {
		_ = r.w.Close()
	}
}
