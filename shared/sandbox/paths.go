package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"demiurge.dev/shared/pathrules"
)

// SystemReadPaths are readable (and executable) by every sandboxed
// command: programs, libraries, configuration, the kernel's views. The
// user's home is not among them.
var SystemReadPaths = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/proc", "/sys", "/run/systemd/resolve"}

// deviceRWPaths are the device files a command may write and ioctl.
var deviceRWPaths = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/pts", "/dev/ptmx", "/dev/shm"}

// systemSecrets are masked (hidden behind an empty file) where a mount
// namespace exists: system directories are readable, these are not.
var systemSecrets = []string{"/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-", "/etc/ssh/ssh_host_rsa_key", "/etc/ssh/ssh_host_ecdsa_key", "/etc/ssh/ssh_host_ed25519_key", "/etc/ssh/ssh_host_dsa_key"}

// maxScanEntries bounds the walk that finds sensitive files in the
// workspace; a larger workspace is refused rather than half hidden.
var maxScanEntries = 200000

// SensitiveIn lists the sensitive paths (pathrules) under dir: files and
// whole directories, without descending into a sensitive directory or
// .git/objects. It fails when the workspace is larger than the scan bound,
// so that nothing sensitive is left unhidden silently.
func SensitiveIn(dir string) ([]string, error) {
	var found []string
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrPermission) {
				return nil // unreadable for us is unreadable for the command
			}
			return err
		}
		if n++; n > maxScanEntries {
			return fmt.Errorf("the workspace has more than %d entries to scan for sensitive files; sandbox a smaller directory", maxScanEntries)
		}
		if p == dir {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() && rel == filepath.Join(".git", "objects") {
			return fs.SkipDir
		}
		if pathrules.IsSensitive(rel) {
			found = append(found, p)
			if d.IsDir() {
				return fs.SkipDir
			}
		}
		return nil
	})
	return found, err
}

// protectTarget is the path to hold read-only for a protected path: the
// path itself, or when it does not exist its nearest existing ancestor
// strictly inside the workspace. A missing protected path directly under
// the workspace cannot be held (neither Landlock nor a mount can refuse
// one name) and is an error: create it, or run read-only.
func protectTarget(workspace, p string) (string, error) {
	ws := filepath.Clean(workspace)
	q := filepath.Clean(p)
	if !within(ws, q) {
		return "", nil // outside the workspace nothing is writable anyway
	}
	for q != ws {
		if _, err := os.Lstat(q); err == nil {
			return q, nil
		}
		q = filepath.Dir(q)
	}
	return "", fmt.Errorf("protected path %s does not exist and its parent is the workspace, so it cannot be held read-only: create it or use sandbox mode read-only", p)
}

// within reports whether p is dir or lies under it.
func within(dir, p string) bool {
	return p == dir || strings.HasPrefix(p, dir+string(filepath.Separator))
}

// UserConfigPaths are the files of a home directory that programs a
// sandboxed command runs cannot do without and that hold no credential:
// git treats an unreadable ~/.gitconfig as fatal (Landlock answers EACCES,
// not ENOENT). The launcher adds those that exist to Policy.ReadOnly.
func UserConfigPaths(home string) []string {
	var out []string
	for _, rel := range []string{".gitconfig", ".config/git/config", ".config/git/ignore", ".config/git/attributes"} {
		p := filepath.Join(home, rel)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			out = append(out, p)
		}
	}
	return out
}
