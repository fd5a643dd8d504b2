package approval

import (
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"time"
)

// LiveOperatorFile is the operator's approvals file as it is at each
// decision: a long-lived host serves front ends for days, and a rule the
// operator removed (or a deny added) with `demiurge approvals` must count
// from the next call, not from the host's next start. The file is read
// again when its identity or its directory's changed (device, inode,
// size, mtime, ctime, mode, owner of both), so a decision costs two
// lstat calls while nothing changed.
type LiveOperatorFile struct {
	File string
	// Off are the agent-reachable directories the file may not lie in
	// (LoadOperatorFile's).
	Off []string

	mu    sync.Mutex
	key   [2]statKey
	ok    bool
	rules []Rule
	err   error
}

type statKey struct {
	exists                bool
	dev, ino, size        uint64
	mode, uid             uint32
	mtime, ctime          int64
	mtimeNsec, ctimeNsecs int64
}

func statOf(p string) statKey {
	var st syscall.Stat_t
	if err := syscall.Lstat(p, &st); err != nil {
		return statKey{}
	}
	return statKey{exists: true, dev: uint64(st.Dev), ino: st.Ino, size: uint64(st.Size), mode: st.Mode, uid: st.Uid,
		mtime: st.Mtim.Sec, mtimeNsec: st.Mtim.Nsec, ctime: st.Ctim.Sec, ctimeNsecs: st.Ctim.Nsec}
}

// Rules are the file's rules now; an error (the file became unreadable,
// another's, writable by others, malformed) is returned every time until
// it is fixed, and the caller refuses rather than decide without them.
func (l *LiveOperatorFile) Rules() ([]Rule, error) {
	if l == nil || l.File == "" {
		return nil, nil
	}
	key := [2]statKey{statOf(l.File), statOf(filepath.Dir(l.File))}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ok && key == l.key {
		return l.rules, l.err
	}
	l.rules, l.err = LoadOperatorFile(l.File, l.Off...)
	// A change within the last second could keep the times (coarse
	// timestamps): such a read is not kept.
	fresh := time.Since(time.Unix(key[0].ctime, key[0].ctimeNsecs)) < time.Second ||
		time.Since(time.Unix(key[1].ctime, key[1].ctimeNsecs)) < time.Second
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
