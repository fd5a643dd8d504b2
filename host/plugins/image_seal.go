package plugins

import (
	"errors"
	"time"

	"golang.org/x/sys/unix"
)

// imageSeals are the seals of a verified image: no write, resize or
// unseal from then on, by anyone holding the fd.
const imageSeals = unix.F_SEAL_WRITE | unix.F_SEAL_SHRINK | unix.F_SEAL_GROW | unix.F_SEAL_SEAL

// sealTries and sealPause bound how long sealing waits out a refusal the
// kernel gives for a moment: F_SEAL_WRITE answers EBUSY while any page
// of the file is still referenced from elsewhere, which the kernel's own
// page scanners (memory reporting, DAMON) and a process forked at that
// instant can cause; the kernel waits about 75 ms itself before it says
// so. An image that stays busy past the last try is not run.
const (
	sealTries = 5
	sealPause = 20 * time.Millisecond
)

// sealImage adds imageSeals to the memfd fd, waiting out a busy refusal.
func sealImage(fd uintptr) error {
	var err error
	for try := range sealTries {
		if try > 0 {
			time.Sleep(sealPause << (try - 1))
		}
		if _, err = unix.FcntlInt(fd, unix.F_ADD_SEALS, imageSeals); !errors.Is(err, unix.EBUSY) {
			return err
		}
	}
	return err
}
