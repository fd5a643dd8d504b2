package plugins

import (
	"errors"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestSealImageWaitsOutABusyFileAndNeverRunsAnUnsealedOne: F_SEAL_WRITE is
// refused (EBUSY) while the file is writably mapped or its pages are held
// elsewhere for a moment, as the kernel's page scanners can; a clean
// checkout's CI once failed a plugin start on it. sealImage waits such a
// moment out and seals all four seals; a file that stays busy is refused,
// unsealed, never reported sealed.
func TestSealImageWaitsOutABusyFileAndNeverRunsAnUnsealedOne(t *testing.T) {
	busy := func(t *testing.T) (fd int, release func()) {
		t.Helper()
		fd, err := unix.MemfdCreate("seal-test", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
		if err != nil {
			t.Skipf("memfd: %v", err)
		}
		t.Cleanup(func() { unix.Close(fd) })
		if _, err := unix.Write(fd, make([]byte, 4096)); err != nil {
			t.Fatal(err)
		}
		m, err := unix.Mmap(fd, 0, 4096, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_ADD_SEALS, unix.F_SEAL_WRITE); !errors.Is(err, unix.EBUSY) {
			t.Fatalf("sealing a writably mapped memfd: %v, want EBUSY (the case this test stands for)", err)
		}
		return fd, func() { unix.Munmap(m) }
	}

	t.Run("busy for a moment", func(t *testing.T) {
		fd, release := busy(t)
		go func() { time.Sleep(30 * time.Millisecond); release() }()
		if err := sealImage(uintptr(fd)); err != nil {
			t.Fatalf("sealImage: %v", err)
		}
		seals, err := unix.FcntlInt(uintptr(fd), unix.F_GET_SEALS, 0)
		if err != nil || seals != imageSeals {
			t.Fatalf("seals %#x (%v), want %#x", seals, err, imageSeals)
		}
		if _, err := unix.Write(fd, []byte("x")); err == nil {
			t.Fatal("a write reached the sealed image")
		}
	})
	t.Run("busy throughout", func(t *testing.T) {
		fd, release := busy(t)
		defer release()
		if err := sealImage(uintptr(fd)); !errors.Is(err, unix.EBUSY) {
			t.Fatalf("sealImage of a file busy throughout: %v, want EBUSY", err)
		}
		if seals, _ := unix.FcntlInt(uintptr(fd), unix.F_GET_SEALS, 0); seals&unix.F_SEAL_WRITE != 0 {
			t.Fatal("a refused seal left the write seal on")
		}
	})
}
