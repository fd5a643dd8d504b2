package mcp

import "syscall"

// syscallNoFollow keeps the stderr log from being a symlink planted to
// redirect the append elsewhere.
const syscallNoFollow = syscall.O_NOFOLLOW
