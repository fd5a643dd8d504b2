//go:build !demiurge_nolandlock

package sandbox

// forcedNoLandlock is true only in a test build (-tags demiurge_nolandlock)
// that pretends the kernel lacks Landlock, to show the fail-closed path. No
// file, flag or environment variable can set it.
const forcedNoLandlock = false
