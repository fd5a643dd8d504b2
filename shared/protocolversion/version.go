// Package protocolversion holds the toolset protocol's version and minor
// (see shared.ProtocolVersion and shared.ProtocolMinor, which say what each
// minor added) in a package that imports nothing, so that a program that
// only prints them (the launcher's --version) need not link gRPC.
package protocolversion

// Version is the toolset protocol spoken by this build.
const Version = 1

// Minor counts additive changes within Version (shared.ProtocolMinor's
// comment lists them).
const Minor = 9
