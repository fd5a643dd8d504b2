//go:build linux && !amd64

package sandbox

// seccompNative: the filter is written for x86_64; elsewhere it is not
// loaded and a sandboxed command does not run (fail closed).
const seccompNative = false

var sysnum = map[string]uint32{}
