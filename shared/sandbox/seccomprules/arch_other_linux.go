//go:build linux && !amd64 && !arm64

package seccomprules

// nativeArch is zero where no architecture is known: no system call
// matches it, so a filter built here fails every call (ENOSYS) rather
// than let one through unfiltered.
const nativeArch = 0
