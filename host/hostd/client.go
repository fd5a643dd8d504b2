package hostd

import "demiurge.dev/host/hostd/hostclient"

// The front end's side of the socket lives in hostclient, which links
// nothing of the host (bin/demiurge-front uses it); the full CLI reaches
// it through these names.

type (
	Client            = hostclient.Client
	DialOptions       = hostclient.DialOptions
	OtherOptionsError = hostclient.OtherOptionsError
)

var (
	ErrNoHost     = hostclient.ErrNoHost
	Dial          = hostclient.Dial
	Ensure        = hostclient.Ensure
	Running       = hostclient.Running
	RuntimeDir    = hostclient.RuntimeDir
	SocketPath    = hostclient.SocketPath
	LockPath      = hostclient.LockPath
	StartLockPath = hostclient.StartLockPath

	ensureRuntimeDir = hostclient.EnsureRuntimeDir
	flock            = hostclient.Flock
	errLocked        = hostclient.ErrLocked
)
