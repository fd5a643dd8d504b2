package catalogsnap

import "syscall"

// noFollow keeps a symlink planted in the cache or key directory from
// choosing what the host and the launcher read.
const noFollow = syscall.O_NOFOLLOW
