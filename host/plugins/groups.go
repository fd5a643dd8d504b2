package plugins

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"sync"
	"syscall"
)

// procRoot is /proc; tests do not change it, it only names the one place.
const procRoot = "/proc"

// spawnedGroups are the process groups a plugin reported for its running
// calls (pgid -> leader start marker), by invocation. They are the host's
// last resort: the plugin ends its groups itself, and its reaper ends them
// if the plugin is killed; only when both are gone does the host end
// what is still recorded here.
type spawnedGroups struct {
	mu     sync.Mutex
	byCall map[string]map[int]string
}

// add records a group reported by the plugin whose pid is pluginPID, only
// if it is what the plugin says: a group leader that is the plugin's own
// child with that start marker. A plugin cannot make the host end a group
// it did not start.
func (g *spawnedGroups) add(call string, pluginPID, pgid int, marker string) bool {
	st, err := readStat(pgid)
	if err != nil || pgid <= 1 || pluginPID <= 1 || st.ppid != pluginPID || st.pgrp != pgid || st.start != marker {
		return false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.forgetEmpty()
	if g.byCall == nil {
		g.byCall = map[string]map[int]string{}
	}
	if g.byCall[call] == nil {
		g.byCall[call] = map[int]string{}
	}
	g.byCall[call][pgid] = marker
	return true
}

// forgetEmpty drops groups that have no process left (the calls of a
// live plugin that the host stopped waiting for, e.g. cancelled), so the
// record stays as small as what is running. Called with mu held.
func (g *spawnedGroups) forgetEmpty() {
	for call, groups := range g.byCall {
		for pgid := range groups {
			if errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH) {
				delete(groups, pgid)
			}
		}
		if len(groups) == 0 {
			delete(g.byCall, call)
		}
	}
}

// done forgets a call's groups: the plugin answered it, and a terminal
// call answers only once its trees are gone.
func (g *spawnedGroups) done(call string) {
	g.mu.Lock()
	delete(g.byCall, call)
	g.mu.Unlock()
}

// endAll kills every recorded group that passes the start-marker check
// and forgets them all; it returns the groups it signalled.
func (g *spawnedGroups) endAll() []int {
	g.mu.Lock()
	calls := g.byCall
	g.byCall = nil
	g.mu.Unlock()
	var ended []int
	for _, groups := range calls {
		for pgid, marker := range groups {
			if endGroup(pgid, marker) {
				ended = append(ended, pgid)
			}
		}
	}
	return ended
}

// endGroup sends KILL to the group pgid unless its id now belongs to a
// stranger: when a process holds the id pgid with another start time,
// our group is empty (Linux never hands out an id that a live group still
// uses), and signalling it would hit the stranger's group. When no process
// holds the id, the leader is gone and any member left is ours.
func endGroup(pgid int, marker string) bool {
	if pgid <= 1 {
		return false
	}
	st, err := readStat(pgid)
	switch {
	case err == nil && st.start != marker:
		return false // reused
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return false // cannot tell: leave it
	}
	return syscall.Kill(-pgid, syscall.SIGKILL) == nil
}

// procStat is what the host reads of /proc/PID/stat.
type procStat struct {
	ppid, pgrp int
	start      string // field 22, starttime: with the PID, one process for the machine's life
}

// readStat parses /proc/PID/stat after the command name, which may hold
// spaces and parentheses: everything after the last ')' is plain.
func readStat(pid int) (procStat, error) {
	b, err := os.ReadFile(procRoot + "/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, errors.New("stat has no command name")
	}
	f := bytes.Fields(b[i+1:]) // f[0] is field 3 (state)
	if len(f) < 20 {
		return procStat{}, errors.New("stat is short")
	}
	ppid, err1 := strconv.Atoi(string(f[1]))
	pgrp, err2 := strconv.Atoi(string(f[2]))
	if err1 != nil || err2 != nil {
		return procStat{}, errors.New("stat has no ppid or pgrp")
	}
	return procStat{ppid: ppid, pgrp: pgrp, start: string(f[19])}, nil
}
