package hostclient

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync/atomic"
	"syscall"

	"google.golang.org/grpc/credentials"
)

// clientCreds is the front end's half of the host's "peercred" transport:
// no encryption (the socket never leaves the machine); the host reads the
// peer's credentials on its side.
type clientCreds struct {
	// refused keeps why a connection was refused, for Dial to say.
	refused *atomic.Pointer[error]
}

type clientInfo struct{ credentials.CommonAuthInfo }

func (clientInfo) AuthType() string { return "peercred" }

// ClientHandshake admits the host as the host admits its front ends, by
// the kernel's word: a socket served by another user (one who could put
// a socket of their own where the state's was) is never sent the token,
// the front end's options or a model key.
func (cc clientCreds) ClientHandshake(_ context.Context, _ string, c net.Conn) (net.Conn, credentials.AuthInfo, error) {
	if err := servedByOwnUser(c); err != nil {
		if cc.refused != nil {
			cc.refused.Store(&err)
		}
		c.Close()
		return nil, nil, err
	}
	return c, clientInfo{credentials.CommonAuthInfo{SecurityLevel: credentials.NoSecurity}}, nil
}

// servedByOwnUser says why the peer of c is not this process's user.
func servedByOwnUser(c net.Conn) error {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return errors.New("the host socket is not a Unix socket")
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return err
	}
	var cred *syscall.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil {
		return err
	}
	if cerr != nil {
		return fmt.Errorf("the host socket's peer: %w", cerr)
	}
	if int(cred.Uid) != ownUID {
		return fmt.Errorf("the host socket is served by uid %d (pid %d), not by this user (uid %d): refused", cred.Uid, cred.Pid, ownUID)
	}
	return nil
}

// ownUID is this process's user.
var ownUID = os.Getuid()

func (clientCreds) ServerHandshake(net.Conn) (net.Conn, credentials.AuthInfo, error) {
	return nil, nil, errors.New("hostclient: a front end serves no connection")
}

func (clientCreds) Info() credentials.ProtocolInfo {
	return credentials.ProtocolInfo{SecurityProtocol: "peercred"}
}
func (c clientCreds) Clone() credentials.TransportCredentials { return c }
func (clientCreds) OverrideServerName(string) error           { return nil }
