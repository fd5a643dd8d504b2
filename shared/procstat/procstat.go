// Package procstat reads what the host needs of another process from
// Linux's /proc/PID/stat; elsewhere there is no such file and every
// answer is "unknown".
package procstat

import (
	"os"
	"strconv"
	"strings"
)

// ParentOf reads a process's parent pid from /proc/PID/stat: the field
// after the parenthesised command name, which may itself hold spaces and
// parentheses (hence the last ')'). ok is false when the process is gone
// or the file cannot be read.
func ParentOf(pid int) (ppid int, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0, false
	}
	ppid, err = strconv.Atoi(f[1])
	return ppid, err == nil
}
