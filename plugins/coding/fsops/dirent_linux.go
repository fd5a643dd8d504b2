package fsops

import (
	"bytes"
	"encoding/binary"
	"errors"

	"golang.org/x/sys/unix"
)

// readDirents lists a directory descriptor with getdents64, giving each
// entry's name and d_type without a stat per entry (os.ReadDir on a path
// would also re-resolve the path, which the walk must not do). fn returns
// false to stop.
func readDirents(fd int, buf []byte, fn func(name string, typ uint8) bool) error {
	for {
		n, err := unix.Getdents(fd, buf)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return err
		}
		if n <= 0 {
			return nil
		}
		// struct linux_dirent64 { u64 d_ino; s64 d_off; u16 d_reclen; u8 d_type; char d_name[]; }
		for off := 0; off < n; {
			rec := buf[off:n]
			if len(rec) < 19 {
				return errors.New("getdents: short record")
			}
			reclen := int(binary.NativeEndian.Uint16(rec[16:18]))
			if reclen < 19 || reclen > len(rec) {
				return errors.New("getdents: bad record length")
			}
			off += reclen
			if binary.NativeEndian.Uint64(rec[0:8]) == 0 {
				continue // deleted entry
			}
			name := rec[19:reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			if len(name) == 0 || string(name) == "." || string(name) == ".." {
				continue
			}
			if !fn(string(name), rec[18]) {
				return nil
			}
		}
	}
}
