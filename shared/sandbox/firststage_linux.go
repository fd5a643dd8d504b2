package sandbox

import (
	"os"
	"path/filepath"
	"syscall"
)

// FirstStageName is the helper's first stage as a binary of its own
// (cmd/sandbox/first), which make build puts beside the helper.
const FirstStageName = "demiurge-sandbox-first"

// firstStageBeside is the first-stage binary beside helper when it is as
// trustworthy as the helper: a regular file (not a symlink) of the
// helper's owner that no group or other user may write, in the helper's
// own directory, which the launcher's checks of the helper already cover.
// Otherwise "", and the helper runs its first stage itself (--spawn):
// slower, never less confined.
func firstStageBeside(helper string) string {
	if !filepath.IsAbs(helper) {
		return ""
	}
	h, err := os.Stat(helper)
	if err != nil {
		return ""
	}
	p := filepath.Join(filepath.Dir(helper), FirstStageName)
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o022 != 0 || fi.Mode().Perm()&0o100 == 0 {
		return ""
	}
	hs, ok1 := h.Sys().(*syscall.Stat_t)
	fs, ok2 := fi.Sys().(*syscall.Stat_t)
	if !ok1 || !ok2 || hs.Uid != fs.Uid {
		return ""
	}
	return p
}
