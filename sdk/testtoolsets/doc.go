// Package testtoolsets holds toolset plugins that exist only for tests of
// the host: they crash, misbehave at the handshake, or speak another
// protocol version. No core ever lists them.
package testtoolsets
