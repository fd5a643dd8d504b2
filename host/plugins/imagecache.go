package plugins

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"demiurge.dev/shared/fileid"
)

// A verified-image record says: the file at this path, while it had this
// identity, hashed to this sum. A start that finds its binary with a
// recorded identity runs the file itself instead of copying and hashing
// it into a sealed memfd (image.go), which costs tens of milliseconds per
// plugin on every host start.
//
// Why the identity is enough, and what is added to it:
//
//   - dev and inode name the file; a rename or symlink swap, or a new file
//     in the old one's place, is another inode, or (an inode number
//     reused) a new ctime.
//   - ctime is set by the kernel to the current time on every write,
//     truncate, chmod or utimes, and no unprivileged call can set it: a
//     file rewritten to the same size with its mtime put back still has
//     a new ctime. Only an identity whose ctime was already older than
//     minRecordAge when it was hashed is recorded, so a write in the same
//     clock tick as the recorded ctime cannot go unseen (ctimes are
//     coarse: a kernel tick).
//   - mtime and size are kept too (cheap, and they say what changed).
//   - What ctime cannot see: a process that already had the file open or
//     mapped for writing when it was hashed (a shared writable mapping
//     dirtied once changes bytes without a new ctime until writeback).
//     So both the hash that records and the start that uses a record hold
//     a read lease on the file (F_SETLEASE F_RDLCK), which the kernel
//     grants only when nobody has the file open for writing and which a
//     new writer must break first; a start whose lease is breaking falls
//     back to the full check.
//   - Between the check and the exec nobody can write (the lease); after
//     the exec the kernel refuses writes to a running image (ETXTBSY).
//     An interpreted plugin's script is read later by its interpreter, so
//     only ELF images take the cached path.
//
// The records live under the state directory (Config.VerifiedDir), no
// less protected than the sums they vouch for (the .sha256 beside each
// binary, an installed package's lock under the state): whoever can
// forge a record can rewrite the sum itself.
type verifiedRecords struct{ dir string }

// minRecordAge is how old a file's ctime must be before its identity is
// recorded (far above a kernel tick).
const minRecordAge = time.Second

// identityOf is the identity of the regular file f is open on. A record
// written before stop 52 (no mode or uid) matches no identity: that
// binary gets one full check, and its record is written anew.
func identityOf(f *os.File) (fileid.ID, error) {
	id, err := fileid.Of(f)
	if err != nil {
		return fileid.ID{}, err
	}
	if !id.IsRegular() {
		return fileid.ID{}, fmt.Errorf("%s is not a regular file", f.Name())
	}
	return id, nil
}

// verifiedRecord is one record: a lookup reads the path's record and
// requires every field equal.
type verifiedRecord struct {
	Path     string    `json:"path"`
	Identity fileid.ID `json:"identity"`
	SHA256   string    `json:"sha256"`
}

// file is where rec's path keeps its one record: a new full check of the
// same path replaces it, so the directory holds one small file per plugin
// binary ever started.
func (r verifiedRecords) file(rec verifiedRecord) string {
	sum := sha256.Sum256([]byte(rec.Path))
	return filepath.Join(r.dir, hex.EncodeToString(sum[:16])+".json")
}

// has reports whether rec was recorded.
func (r verifiedRecords) has(rec verifiedRecord) bool {
	if r.dir == "" {
		return false
	}
	raw, err := os.ReadFile(r.file(rec))
	if err != nil {
		return false
	}
	var got verifiedRecord
	return json.Unmarshal(raw, &got) == nil && got == rec
}

// record writes rec, complete or not at all. A failure only costs the
// next start a full check.
func (r verifiedRecords) record(rec verifiedRecord) {
	if r.dir == "" {
		return
	}
	raw, err := json.Marshal(rec)
	if err != nil || os.MkdirAll(r.dir, 0o700) != nil {
		return
	}
	tmp, err := os.CreateTemp(r.dir, ".record-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(raw)
	if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), r.file(rec)) != nil {
		os.Remove(tmp.Name())
	}
}

// readLease holds a read lease on f: granted only while nobody has the
// file open for writing; a writer's open must break it (and waits up to
// the lease break time for us to let go).
func readLease(f *os.File) bool {
	_, err := unix.FcntlInt(f.Fd(), unix.F_SETLEASE, unix.F_RDLCK)
	return err == nil
}

// leaseIntact reports whether f's read lease is still held and no writer
// is breaking it (a breaking lease reads as F_UNLCK).
func leaseIntact(f *os.File) bool {
	t, err := unix.FcntlInt(f.Fd(), unix.F_GETLEASE, 0)
	return err == nil && t == unix.F_RDLCK
}

func dropLease(f *os.File) { _, _ = unix.FcntlInt(f.Fd(), unix.F_SETLEASE, unix.F_UNLCK) }

// leaseBreakTime is how long the kernel lets a lease holder keep a writer
// waiting; a start must exec well within it. Read once, when first needed.
var leaseBreakTime = sync.OnceValue(func() time.Duration {
	raw, err := os.ReadFile("/proc/sys/fs/lease-break-time")
	if err != nil {
		return 0
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil || n < 0 {
		return 0
	}
	return time.Duration(n) * time.Second
})

// minLeaseBreakTime: with a shorter break time (root may set 0) a writer
// could get past the lease before the exec, so the cached path is off.
const minLeaseBreakTime = 5 * time.Second

func isELF(f *os.File) bool {
	var magic [4]byte
	n, err := f.ReadAt(magic[:], 0)
	return err == nil && n == 4 && bytes.Equal(magic[:], []byte("\x7fELF"))
}
