package approval

import (
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"demiurge.dev/shared/fileid"
)

// LiveOperatorFile is the operator's approvals file as it is at each
// decision: a long-lived host serves front ends for days, and a rule the
// operator removed (or a deny added) with `demiurge approvals` must count
// from the next call, not from the host's next start. The file is read
// again when its identity, its directory's or that directory's parent's
// changed (device, inode, size, mtime, ctime, mode, owner: keyOf), so a
// decision costs three stat calls while nothing changed.
type LiveOperatorFile struct {
	File string
	// Off are the agent-reachable directories the file may not lie in
	// (LoadOperatorFile's).
	Off []string

	mu    sync.Mutex
	key   [3]statKey
	ok    bool
	rules []Rule
	err   error
}

type statKey struct {
	exists bool
	id     fileid.ID
}

// keyOf is what the operator-only checks read (policy.ReadOperatorFile,
// OperatorFilePlace): the file itself (lstat: a symlink is refused), and
// the directory it is in and that directory's parent as symlinks lead
// (stat of dir and of dir/.., which the kernel resolves from the real
// directory, not by cutting the path).
func keyOf(file string) [3]statKey {
	dir := filepath.Dir(file)
	return [3]statKey{statOf(file, os.Lstat), statOf(dir, os.Stat), statOf(dir+string(filepath.Separator)+"..", os.Stat)}
}

func statOf(p string, stat func(string) (os.FileInfo, error)) statKey {
	fi, err := stat(p)
	if err != nil {
		return statKey{}
	}
	id, ok := fileid.FromInfo(fi)
	return statKey{exists: ok, id: id}
}

// liveSettle is how old the ctimes must be before a read is kept: a
// change within a kernel tick of the read could keep the times it saw.
var liveSettle = time.Second

// Rules are the file's rules now; an error (the file became unreadable,
// another's, writable by others, malformed) is returned every time until
// it is fixed, and the caller refuses rather than decide without them.
func (l *LiveOperatorFile) Rules() ([]Rule, error) {
	if l == nil || l.File == "" {
		return nil, nil
	}
	key := keyOf(l.File)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ok && key == l.key {
		return l.rules, l.err
	}
	l.rules, l.err = LoadOperatorFile(l.File, l.Off...)
	// A change within the last second could keep the times (coarse
	// timestamps): such a read is not kept.
	fresh := false
	for _, k := range key {
		fresh = fresh || time.Since(k.id.Changed()) < liveSettle
	}
	l.key, l.ok = key, !fresh
	return l.rules, l.err
}

// withOperatorFile is r with the approvals file's rules as they are now
// in place of those it was made with.
func (r *Resolver) withOperatorFile() (*Resolver, error) {
	if r.OperatorFile == nil {
		return r, nil
	}
	fresh, err := r.OperatorFile.Rules()
	if err != nil {
		return nil, err
	}
	if len(fresh) == 0 && !slices.ContainsFunc(r.Rules, func(rule Rule) bool { return rule.Origin == OriginOperatorFile }) {
		return r, nil // no file, as when r was made: nothing to replace
	}
	out := *r
	out.Rules = make([]Rule, 0, len(r.Rules)+len(fresh))
	for _, rule := range r.Rules {
		if rule.Origin != OriginOperatorFile {
			out.Rules = append(out.Rules, rule)
		}
	}
	out.Rules = append(out.Rules, fresh...)
	return &out, nil
}

// CurrentRules are the rules a decision now uses: Rules with the
// approvals file's as it is now (withOperatorFile).
func (r *Resolver) CurrentRules() ([]Rule, error) {
	cur, err := r.withOperatorFile()
	if err != nil {
		return nil, err
	}
	return cur.Rules, nil
}
