//go:build linux && !amd64

package sandbox

import (
	"fmt"

	"golang.org/x/sys/unix"

	"demiurge.dev/shared/sandbox/seccomprules"
)

// seccompProgram assembles program i from its rules when the process
// needs it (amd64 has them assembled ahead of time:
// seccomp_table_linux_amd64.go).
func seccompProgram(i int) ([]unix.SockFilter, error) {
	switch i {
	case filterOnline, filterOnlineNoUnix, filterOffline, filterOfflineNoUnix:
		return seccomprules.Program(seccomprules.Command(i >= filterOffline, i == filterOnlineNoUnix || i == filterOfflineNoUnix))
	case filterPlugin:
		return seccomprules.Program(seccomprules.Plugin())
	}
	return nil, fmt.Errorf("seccomp: no program %d", i)
}
