package hostclient

import (
	"context"
	"errors"
	"net"

	"google.golang.org/grpc/credentials"
)

// clientCreds is the front end's half of the host's "peercred" transport:
// no encryption (the socket never leaves the machine); the host reads the
// peer's credentials on its side.
type clientCreds struct{}

type clientInfo struct{ credentials.CommonAuthInfo }

func (clientInfo) AuthType() string { return "peercred" }

func (clientCreds) ClientHandshake(_ context.Context, _ string, c net.Conn) (net.Conn, credentials.AuthInfo, error) {
	return c, clientInfo{credentials.CommonAuthInfo{SecurityLevel: credentials.NoSecurity}}, nil
}

func (clientCreds) ServerHandshake(net.Conn) (net.Conn, credentials.AuthInfo, error) {
	return nil, nil, errors.New("hostclient: a front end serves no connection")
}

func (clientCreds) Info() credentials.ProtocolInfo {
	return credentials.ProtocolInfo{SecurityProtocol: "peercred"}
}
func (c clientCreds) Clone() credentials.TransportCredentials { return c }
func (clientCreds) OverrideServerName(string) error           { return nil }
