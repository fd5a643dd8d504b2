package hostd

import (
	"context"
	"net"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	"demiurge.dev/host/runtime"
	"demiurge.dev/shared/hostv1"
)

// peerCreds is a transport "security" that does no encryption (the
// socket never leaves the machine) but reads the peer's credentials at
// connection time, for the interceptors to judge on every call: a
// refusal there carries a message, where a refused handshake would only
// close the connection.
type peerCreds struct{}

type peerInfo struct {
	credentials.CommonAuthInfo
	p   runtime.Peer
	err error
}

func (peerInfo) AuthType() string { return "peercred" }

func (peerCreds) ServerHandshake(c net.Conn) (net.Conn, credentials.AuthInfo, error) {
	info := peerInfo{CommonAuthInfo: credentials.CommonAuthInfo{SecurityLevel: credentials.NoSecurity}}
	uc, ok := c.(*net.UnixConn)
	if !ok {
		info.err = errNotUnix
	} else {
		info.p, info.err = runtime.PeerOf(uc)
	}
	return c, info, nil
}

func (peerCreds) ClientHandshake(_ context.Context, _ string, c net.Conn) (net.Conn, credentials.AuthInfo, error) {
	return c, peerInfo{CommonAuthInfo: credentials.CommonAuthInfo{SecurityLevel: credentials.NoSecurity}}, nil
}

func (peerCreds) Info() credentials.ProtocolInfo {
	return credentials.ProtocolInfo{SecurityProtocol: "peercred"}
}
func (c peerCreds) Clone() credentials.TransportCredentials { return c }
func (peerCreds) OverrideServerName(string) error           { return nil }

var errNotUnix = status.Error(codes.PermissionDenied, "the host socket answers Unix connections only")

// admit judges one call: the peer as the task socket would, and the token.
func (s *Server) admit(ctx context.Context) (runtime.Peer, error) {
	pr, ok := peer.FromContext(ctx)
	if !ok {
		return runtime.Peer{}, status.Error(codes.PermissionDenied, "the host socket could not tell who is asking")
	}
	info, ok := pr.AuthInfo.(peerInfo)
	if !ok || info.err != nil {
		return runtime.Peer{}, status.Error(codes.PermissionDenied, "the host socket could not tell who is asking")
	}
	var token string
	if md, ok := metadata.FromIncomingContext(ctx); ok {
		if v := md.Get(hostv1.TokenMetadata); len(v) == 1 {
			token = v[0]
		}
	}
	if why := runtime.AdmitPeer(info.p, token, s.token, s.socket, "the host socket"); why != "" {
		s.log.Warn("refused a front end", "pid", info.p.PID, "uid", info.p.UID, "exe", info.p.Exe, "reason", why)
		return info.p, status.Error(codes.PermissionDenied, why)
	}
	return info.p, nil
}

func (s *Server) unary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if _, err := s.admit(ctx); err != nil {
		return nil, err
	}
	return handler(ctx, req)
}

func (s *Server) stream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	if _, err := s.admit(ss.Context()); err != nil {
		return err
	}
	if info.FullMethod == hostv1.Host_MCPHTTPConn_FullMethodName {
		// One HTTP connection of a front end already attached (its
		// ServeMCPHTTP stream): not a front end of its own.
		return handler(srv, ss)
	}
	// A stream is a front end attached: the host is not idle while it
	// lasts.
	s.attach(+1)
	defer s.attach(-1)
	return handler(srv, ss)
}
