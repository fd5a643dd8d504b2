package sandboxing

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"demiurge.dev/shared/sandbox"
)

// LaunchRefusal says why the host must not start the binary at path (a
// toolset plugin, an installed package's plugin, the sandbox helper): ""
// when nothing but the operator (or root) could have written it. What the
// host starts runs unconfined, so a binary that a sandboxed command could
// have written is a way out of the sandbox for everything that command
// left behind. Refused are:
//   - a binary inside the workspace, once resolved through symlinks, in a
//     place the helper does not hold read-only (bin/demiurge-toolset-x ->
//     ../build/x leaves the file writable while bin/ is held);
//   - a file, or any directory above it, owned by someone other than the
//     user or root, or writable by others (or by a group other than the
//     user's own), as sshd's StrictModes refuses them; a sticky directory
//     such as /tmp is fine, since only an entry's owner may rename it.
//
// In mode off every command is unconfined by the operator's choice, so
// the workspace rule does not apply there.
func (c Config) LaunchRefusal(path, workspace string) string {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return fmt.Sprintf("%s cannot be resolved (%v)", path, err)
	}
	if why := ownerRefusal(real); why != "" {
		return why + fix("fix its owner and permissions (chown, chmod go-w) or rebuild it where only you can write (make build)")
	}
	if c.Mode == "" || c.Mode == sandbox.Off || workspace == "" {
		return ""
	}
	ws, err := filepath.EvalSymlinks(workspace)
	if err != nil {
		ws = filepath.Clean(workspace)
	}
	if !within(real, ws) {
		return ""
	}
	for _, held := range append(append([]string(nil), c.HostOwned...), c.Protected...) {
		if r, err := filepath.EvalSymlinks(held); err == nil {
			held = r
		}
		if within(real, filepath.Clean(held)) {
			return ""
		}
	}
	shown := real
	if real != path {
		shown = path + " (which is " + real + ")"
	}
	return fmt.Sprintf("%s lies in the workspace %s outside what the sandbox holds read-only, so a sandboxed command could have written it", shown, ws) +
		fix("put the binary itself (not a symlink to the workspace) in the plugin directory, or build it outside the workspace, then rebuild it (make build)")
}

func fix(what string) string {
	return "; the host will not start it: " + what
}

// within says p is dir or lies under it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// ownerRefusal walks p and every directory above it.
func ownerRefusal(p string) string {
	uid := os.Geteuid()
	for q := p; ; q = filepath.Dir(q) {
		fi, err := os.Lstat(q)
		if err != nil {
			return fmt.Sprintf("%s cannot be checked (%v)", q, err)
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			return fmt.Sprintf("%s cannot be checked (no owner)", q)
		}
		what := "the binary " + q
		if q != p {
			what = "its directory " + q
		}
		if int(st.Uid) != uid && st.Uid != 0 {
			return fmt.Sprintf("%s is owned by uid %d, not by you or root, so its owner could have written it", what, st.Uid)
		}
		sticky := fi.IsDir() && fi.Mode()&os.ModeSticky != 0
		if fi.Mode().Perm()&0o002 != 0 && !sticky {
			return fmt.Sprintf("%s is writable by every user (mode %v)", what, fi.Mode().Perm())
		}
		if fi.Mode().Perm()&0o020 != 0 && !sticky && !ownGroup(st.Gid) {
			return fmt.Sprintf("%s is writable by its group (gid %d, mode %v), whose members could have written it", what, st.Gid, fi.Mode().Perm())
		}
		if q == filepath.Dir(q) {
			return ""
		}
	}
}

// ownGroup is the user's private group (named as the user, as useradd
// makes it): group write there is the user's own, as sshd allows.
func ownGroup(gid uint32) bool {
	u, err := user.Current()
	if err != nil {
		return false
	}
	g, err := user.LookupGroupId(strconv.FormatUint(uint64(gid), 10))
	return err == nil && g.Name == u.Username && u.Gid == g.Gid
}
