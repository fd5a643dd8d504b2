package sdk

import (
	"os"
	"path/filepath"
)

// nameProcess gives the process the name of the binary it was started as.
// The host runs a plugin from the sealed memfd its bytes were verified in
// (/proc/self/fd/N), so the kernel would call it "N" in ps, top and
// /proc/PID/comm; argv[0] still names the toolset binary. /proc/self/comm
// is the main thread's name, which is the one ps shows (prctl would name
// whichever thread Serve happens to run on); the kernel keeps 15 bytes.
func nameProcess() {
	if len(os.Args) == 0 || os.Args[0] == "" {
		return
	}
	_ = os.WriteFile("/proc/self/comm", []byte(filepath.Base(os.Args[0])), 0)
}
