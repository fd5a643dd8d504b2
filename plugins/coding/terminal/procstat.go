package terminal

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// startMarker reads the OS start marker of pid: field 22 (starttime, in
// clock ticks since boot) of /proc/PID/stat. Together with the PID it
// names one process for the life of the machine: a reused PID has a later
// start time.
func startMarker(pid int) (string, error) {
	fields, err := statFields(pid)
	if err != nil {
		return "", err
	}
	// fields[0] is field 3 (state); starttime is field 22.
	if len(fields) < 20 {
		return "", fmt.Errorf("/proc/%d/stat has %d fields after the command name; want at least 20", pid, len(fields))
	}
	return string(fields[19]), nil
}

// statFields returns the fields of /proc/PID/stat after the command name,
// which may itself hold spaces and parentheses: everything after the last
// ')' is plain. It reads with bare syscalls: an os.File would register
// with the poller, which costs more than the read when /proc is scanned.
func statFields(pid int) ([][]byte, error) {
	path := "/proc/" + strconv.Itoa(pid) + "/stat"
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	var buf [1024]byte // a stat line is a few hundred bytes
	n, err := unix.Read(fd, buf[:])
	_ = unix.Close(fd)
	if err != nil {
		return nil, &os.PathError{Op: "read", Path: path, Err: err}
	}
	b := buf[:max(n, 0)]
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil, fmt.Errorf("/proc/%d/stat has no command name", pid)
	}
	return bytes.Fields(b[i+1:]), nil
}

// errNotOurs says the PID now belongs to another process.
var errNotOurs = errors.New("the process id was reused by another process")

// checkMarker tells whether the group led by pid may still be signalled:
// nil when pid is still our process (alive or a zombie we have not reaped)
// or gone entirely (the group may live on without its leader, and its id
// cannot be handed out while a member lives); errNotOurs when a different
// process holds the PID, which means our group is empty and signalling
// that id would hit a stranger.
func checkMarker(pid int, marker string) error {
	got, err := startMarker(pid)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("re-check start marker of %d: %w", pid, err)
	case got != marker:
		return errNotOurs
	}
	return nil
}

// member is one process of a group, named by PID and start marker.
type member struct {
	pid    int
	marker string
}

// alive reports whether the member is still running: not gone, not a
// zombie, and its PID not handed to another process.
func (m member) alive() bool {
	f, err := statFields(m.pid)
	return err == nil && len(f) >= 20 && string(f[0]) != "Z" && string(f[19]) == m.marker
}

// groupMembers scans /proc for the live (non-zombie) processes whose
// process group is pgid.
func groupMembers(pgid int) []member {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	var out []member
	for _, n := range names {
		if n == "" || n[0] < '0' || n[0] > '9' {
			continue
		}
		pid, err := strconv.Atoi(n)
		if err != nil {
			continue
		}
		state, pgrp, marker, ok := statBrief(pid)
		if ok && state != 'Z' && pgrp == pgid {
			out = append(out, member{pid: pid, marker: marker})
		}
	}
	return out
}

// statBrief reads only what a group scan needs from /proc/PID/stat:
// state (field 3), pgrp (field 5) and starttime (field 22), without the
// allocations of splitting every field.
func statBrief(pid int) (state byte, pgrp int, marker string, ok bool) {
	var buf [1024]byte
	fd, err := unix.Open("/proc/"+strconv.Itoa(pid)+"/stat", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0, 0, "", false
	}
	n, err := unix.Read(fd, buf[:])
	_ = unix.Close(fd)
	if err != nil || n <= 0 {
		return 0, 0, "", false
	}
	b := buf[:n]
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, "", false
	}
	field := 2 // the field b[i+1:] starts in, before its leading space
	for j := i + 1; j < len(b); j++ {
		if b[j] != ' ' {
			continue
		}
		field++
		k := j + 1
		for k < len(b) && b[k] != ' ' && b[k] != '\n' {
			k++
		}
		switch field {
		case 3:
			state = b[j+1]
		case 5:
			pgrp, err = strconv.Atoi(string(b[j+1 : k]))
			if err != nil {
				return 0, 0, "", false
			}
		case 22:
			return state, pgrp, string(b[j+1 : k]), true
		}
		j = k - 1
	}
	return 0, 0, "", false
}
