package sandbox

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// The operator's settings for package plugins, read from the host's
// environment only (never agent.yaml, never a package):
// EnvAllowUnconfinedPackages=1 starts them unconfined where the kernel
// cannot confine them (refused otherwise); EnvPackagePorts lists the TCP
// ports they may reach through the host's egress proxy, comma-separated.
const (
	EnvAllowUnconfinedPackages = "DEMIURGE_PACKAGES_ALLOW_UNCONFINED"
	EnvPackagePorts            = "DEMIURGE_PACKAGE_PORTS"
)

// defaultPackagePorts: HTTPS to a provider's API (names are resolved by
// the egress proxy: a plugin needs no DNS of its own).
var defaultPackagePorts = []uint16{443}

// PackagesAllowedUnconfined reports the operator's EnvAllowUnconfinedPackages.
func PackagesAllowedUnconfined() bool { return os.Getenv(EnvAllowUnconfinedPackages) == "1" }

// PackagePorts are the TCP ports a confined package may reach through
// the egress proxy (public addresses only, as every proxied connection):
// the operator's EnvPackagePorts, else 443; a bad entry is an error
// (the start is refused).
func PackagePorts() ([]uint16, error) {
	v, ok := os.LookupEnv(EnvPackagePorts)
	if !ok {
		return defaultPackagePorts, nil
	}
	var out []uint16
	for _, f := range strings.Split(v, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.ParseUint(f, 10, 16)
		if err != nil || n == 0 {
			return nil, fmt.Errorf("%s=%q: %q is not a TCP port", EnvPackagePorts, v, f)
		}
		out = append(out, uint16(n))
	}
	return out, nil
}

// EnvAllowUnconfinedToolsets is the operator's switch for toolset
// plugins installed by path (`plugins install`), read from the host's
// environment only: set to 1, such a plugin starts unconfined where the
// kernel cannot confine it (refused otherwise).
const EnvAllowUnconfinedToolsets = "DEMIURGE_PLUGINS_ALLOW_UNCONFINED"

// ToolsetsAllowedUnconfined reports the operator's EnvAllowUnconfinedToolsets.
func ToolsetsAllowedUnconfined() bool { return os.Getenv(EnvAllowUnconfinedToolsets) == "1" }
