package plugins

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/hashicorp/go-plugin"
	"golang.org/x/sys/unix"

	"demiurge.dev/shared/fileid"
)

// expectedSHA256 is the one place that says which sha256 a plugin's binary
// must have: today the .sha256 file beside it, read at discovery. (An
// installed package's lock file is to take over here.)
func expectedSHA256(c Candidate) (string, error) {
	if c.Recorded == "" {
		return "", fmt.Errorf("toolset plugin %s has no recorded checksum; rebuild it with make or reinstall it", c.Name)
	}
	if _, err := hex.DecodeString(c.Recorded); err != nil || len(c.Recorded) != 2*sha256.Size {
		return "", fmt.Errorf("toolset plugin %s: recorded checksum %q is not a hex sha256", c.Name, c.Recorded)
	}
	return c.Recorded, nil
}

// image is what a plugin's child executes: a sealed memfd holding exactly
// the bytes whose sha256 was checked, or (direct) the binary itself, held
// open under a read lease with an identity recorded as verified
// (imagecache.go). The binary's path is read once; replacing or
// rewriting the file afterwards changes nothing that runs.
type image struct {
	f *os.File
	// direct is set when f is the binary itself, not a copy.
	direct *directImage
}

// directImage is what a start from the binary itself must confirm once
// the child runs.
type directImage struct {
	identity fileid.ID
	checked  time.Time // the lease was seen intact
}

// testHookImageVerified runs after the image is sealed and before the
// plugin is started; tests swap the binary on disk there.
var testHookImageVerified func(c Candidate, img *image)

// errImageMismatch carries the sum that was found.
type errImageMismatch struct{ actual string }

func (e errImageMismatch) Error() string { return "sha256 " + e.actual }
func (e errImageMismatch) Unwrap() error { return plugin.ErrChecksumsDoNotMatch }

// verifiedImage copies the binary into a fresh memfd while hashing the
// bytes copied, compares the sum with the expected one and seals the memfd
// against any later write, so the bytes that run are the bytes checked.
func verifiedImage(c Candidate) (*image, error) {
	return openImage(c, verifiedRecords{})
}

// openImage is verifiedImage, except that a binary whose identity records
// holds is run from the file itself, and a binary checked in full gets
// its identity recorded when it is safe to (imagecache.go).
func openImage(c Candidate, records verifiedRecords) (*image, error) {
	want, err := expectedSHA256(c)
	if err != nil {
		return nil, err
	}
	src, err := os.OpenFile(c.Path, os.O_RDONLY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("toolset plugin %s: open binary: %w", c.Name, err)
	}
	if st, err := src.Stat(); err != nil || !st.Mode().IsRegular() {
		src.Close()
		return nil, fmt.Errorf("toolset plugin %s: %s is not a regular file", c.Name, c.Path)
	}
	var rec verifiedRecord
	recordable := false
	if records.dir != "" && leaseBreakTime() >= minLeaseBreakTime && readLease(src) {
		if id, err := identityOf(src); err == nil && isELF(src) {
			rec = verifiedRecord{Path: c.Path, Identity: id, SHA256: want}
			if records.has(rec) && leaseIntact(src) {
				return &image{f: src, direct: &directImage{identity: id, checked: time.Now()}}, nil
			}
			recordable = time.Since(id.Changed()) > minRecordAge
		}
	}
	defer src.Close() // (closing drops the lease)
	img, err := copyAndVerify(c, src, want)
	if err == nil && recordable && leaseIntact(src) {
		if id, err := identityOf(src); err == nil && id.Equal(rec.Identity) {
			records.record(rec)
		}
	}
	return img, err
}

// copyAndVerify copies src into a sealed memfd, hashing what it copies.
func copyAndVerify(c Candidate, src *os.File, want string) (*image, error) {
	fd, err := unix.MemfdCreate(BinaryPrefix+c.Name, unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return nil, fmt.Errorf("toolset plugin %s: create the verified image: %w", c.Name, err)
	}
	mem := os.NewFile(uintptr(fd), "memfd:"+BinaryPrefix+c.Name)
	h := sha256.New()
	// One big buffer: the copy is a pass the hash makes anyway.
	if _, err := io.CopyBuffer(io.MultiWriter(mem, h), src, make([]byte, 1<<20)); err != nil {
		mem.Close()
		return nil, fmt.Errorf("toolset plugin %s: copy the binary: %w", c.Name, err)
	}
	if actual := hex.EncodeToString(h.Sum(nil)); actual != want {
		mem.Close()
		return nil, errImageMismatch{actual: actual}
	}
	// No write, resize or unseal from here on, by anyone holding the fd.
	if err := sealImage(mem.Fd()); err != nil {
		mem.Close()
		return nil, fmt.Errorf("toolset plugin %s: seal the verified image: %w", c.Name, err)
	}
	if err := mem.Chmod(0o500); err != nil {
		mem.Close()
		return nil, fmt.Errorf("toolset plugin %s: mark the verified image executable: %w", c.Name, err)
	}
	return &image{f: mem}, nil
}

// confirm is called once the child runs (the kernel now refuses writes to
// its image): a direct image must still have its recorded identity, and
// no writer may have got past the lease before the exec, which a lease
// intact until now, or a start shorter than the lease break time, rules
// out. A sealed copy has nothing to confirm.
func (img *image) confirm() error {
	d := img.direct
	if d == nil {
		return nil
	}
	id, err := identityOf(img.f)
	if err != nil || !id.Equal(d.identity) {
		return fmt.Errorf("the binary changed while it was starting")
	}
	if !leaseIntact(img.f) && time.Since(d.checked) >= leaseBreakTime() {
		return fmt.Errorf("a writer got past the binary's lease while it was starting")
	}
	return nil
}

// imageFD is the descriptor the child holds its image on: the first of
// exec.Cmd.ExtraFiles. It stays open across execve, so an interpreted
// plugin (a script or a Python zipapp with a #! line) is read by its
// interpreter from the same sealed, verified bytes; a compiled plugin
// just inherits a read-only descriptor of its own image.
const imageFD = 3

// execPath names the image for execve in the child: its descriptor
// imageFD, which the command's ExtraFiles puts there.
func (img *image) execPath() string { return "/proc/self/fd/" + strconv.Itoa(imageFD) }

// file is what the child gets as its descriptor imageFD.
func (img *image) file() *os.File { return img.f }

func (img *image) close() {
	if img != nil {
		if img.direct != nil {
			dropLease(img.f) // the child shares the open file; the lease must go
		}
		_ = img.f.Close()
	}
}

// mismatchSum returns the found sum of a checksum failure.
func mismatchSum(err error) (string, bool) {
	var m errImageMismatch
	if errors.As(err, &m) {
		return m.actual, true
	}
	return "", false
}
