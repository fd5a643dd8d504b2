//go:build demiurge_nolandlock

package sandbox

// A test build: the kernel is treated as having no Landlock at all, in
// detection and in the helper alike.
const forcedNoLandlock = true
