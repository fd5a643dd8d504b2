package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"demiurge.dev/shared/sandbox"
)

// TestADeviceBeyondTheUsualIsNotReadable: a sandboxed command (an authored
// tool's worker too, which runs under the same policy) reads the usual
// character devices (null, zero, urandom, the terminal) and lists /dev,
// but opens no other device. Run as root, /dev's block devices are the
// owner's: a loop device attached to an image (or a zram swap, a disk)
// was read whole from a read-only, offline sandbox. Needs root and
// losetup (skipped otherwise); the loop device is detached after.
func TestADeviceBeyondTheUsualIsNotReadable(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root owns the block devices")
	}
	losetup, err := exec.LookPath("losetup")
	if err != nil {
		t.Skip("no losetup")
	}
	const secret = "BLOCK-DEVICE-SECRET-7731"
	img := filepath.Join(t.TempDir(), "img")
	if err := os.WriteFile(img, []byte(secret+"\n"+strings.Repeat("\x00", 1<<16)), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(losetup, "-f", "--show", img).Output()
	if err != nil {
		t.Skipf("losetup: %v", err)
	}
	dev := strings.TrimSpace(string(out))
	t.Cleanup(func() { _ = exec.Command(losetup, "-d", dev).Run() })
	for _, m := range []sandbox.Mode{sandbox.Off, sandbox.ReadOnly, sandbox.WorkspaceWrite, sandbox.Network} {
		f := newFixture(t)
		r := f.run(t, f.policy(m), `head -c 64 `+dev+` | grep -a `+secret)
		read := r.exit == 0 && strings.Contains(r.stdout, secret)
		if read != (m == sandbox.Off) {
			t.Errorf("mode %s: read %s = %v\nstdout: %s\nstderr: %s", m, dev, read, r.stdout, r.stderr)
		}
		if m == sandbox.Off {
			continue
		}
		// What commands need of /dev still works.
		r = f.run(t, f.policy(m), `ls /dev >/dev/null && head -c 4 /dev/urandom | wc -c && head -c 4 /dev/zero | wc -c && echo ok > /dev/null && cat /dev/null`)
		if r.exit != 0 || strings.Count(r.stdout, "4") != 2 {
			t.Errorf("mode %s: the usual devices: exit %d\nstdout: %s\nstderr: %s", m, r.exit, r.stdout, r.stderr)
		}
	}
}
