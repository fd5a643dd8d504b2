package egress

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"syscall"
	"time"

	"demiurge.dev/shared/netpolicy"
)

// SOCKS5 (RFC 1928) on the proxy's own socket, for clients that speak no
// HTTP (ssh through `nc -X 5`, ALL_PROXY=socks5h://...). Only what the
// URL policy can judge is taken: the CONNECT command, with no
// authentication (the socket is reachable only from inside the
// command's namespace). The name is resolved here, under the same rules
// as an HTTP CONNECT: one lookup, a dial to that answer only, every
// address checked again at the dial. BIND and UDP ASSOCIATE are refused,
// and so is SOCKS4 (its client resolves names itself).

// SOCKS5 reply codes (RFC 1928 §6).
const (
	socksSucceeded          = 0x00
	socksGeneralFailure     = 0x01
	socksNotAllowed         = 0x02
	socksNetUnreachable     = 0x03
	socksHostUnreachable    = 0x04
	socksConnRefused        = 0x05
	socksCmdNotSupported    = 0x07
	socksAddrTypeNotSupport = 0x08
)

// headerTimeout bounds, from the connection's accept, its first byte and
// a SOCKS5 greeting and request; from the first byte, an HTTP request
// head; and the wait for a kept-alive connection's next request
// (Config.HeaderTimeout, default 30 s): a client that never finishes
// them (slowloris) loses its connection and its place.
func (p *Proxy) headerTimeout() time.Duration {
	if p.cfg.HeaderTimeout > 0 {
		return p.cfg.HeaderTimeout
	}
	return 30 * time.Second
}

var socksCommands = map[byte]string{1: "CONNECT", 2: "BIND", 3: "UDP ASSOCIATE"}

// socks5 serves one SOCKS5 connection whose version byte was read; the
// caller closes it.
func (p *Proxy) socks5(c net.Conn) {
	ev := Event{Kind: "socks5", Start: time.Now()}
	if err := socksGreeting(c); err != nil {
		ev.Verdict, ev.Reason = "refused", err.Error()
		p.report(ev)
		return
	}
	cmd, host, port, code, err := socksRequest(c)
	ev.Method, ev.Host, ev.Port = socksCommands[cmd], host, port
	if ev.Method == "" {
		ev.Method = fmt.Sprintf("command %#x", cmd)
	}
	if err != nil {
		p.socksRefuse(c, ev, code, err.Error())
		return
	}
	if p.cfg.Limited {
		p.socksRefuse(c, ev, socksNotAllowed, "limited network mode allows only GET and HEAD over plain http; a SOCKS5 connection hides what it carries from the proxy, so it is refused")
		return
	}
	ctx, cancel := context.WithCancel(p.life)
	defer cancel()
	t, err := p.admit(ctx, host, port)
	if err != nil {
		p.socksRefuse(c, ev, socksNotAllowed, err.Error())
		return
	}
	ev.Host = t.host
	up, ap, err := p.pol.DialPinned(ctx, t.addrs, port)
	if err != nil {
		code, verdict := socksDialCode(err)
		ev.Verdict = verdict
		p.socksRefuse(c, ev, code, "cannot connect to "+t.host+": "+err.Error())
		return
	}
	ev.Addr, ev.Allowance = ap.String(), p.pol.PrivateAllowance(ap.Addr(), port)
	if !p.track(up) {
		up.Close()
		return
	}
	defer p.untrack(up)
	// The bound address is the host's, not the command's business.
	if _, err := c.Write(socksReply(socksSucceeded)); err != nil {
		ev.Verdict, ev.Reason = "failed", err.Error()
		p.report(ev)
		return
	}
	_ = c.SetDeadline(time.Time{})
	ev.Sent, ev.Recv, err = splice(c, up, nil)
	ev.Verdict = "allowed"
	if err != nil {
		ev.Reason = "ended by an error: " + err.Error()
	}
	p.report(ev)
}

// socksGreeting reads the client's methods and answers "no
// authentication", the only one offered.
func socksGreeting(c net.Conn) error {
	var n [1]byte
	if _, err := io.ReadFull(c, n[:]); err != nil {
		return errors.New("a truncated SOCKS5 greeting")
	}
	methods := make([]byte, n[0])
	if _, err := io.ReadFull(c, methods); err != nil {
		return errors.New("a truncated SOCKS5 greeting")
	}
	if !bytes.Contains(methods, []byte{0}) {
		_, _ = c.Write([]byte{5, 0xFF})
		endCleanly(c)
		return fmt.Errorf("the SOCKS5 client offered no method the proxy takes (methods % x; only 00, no authentication)", methods)
	}
	_, err := c.Write([]byte{5, 0})
	return err
}

// socksRequest reads one request: command, host (a name, or an address
// literal written as text) and port; on a bad request it returns the
// reply code to send.
func socksRequest(c net.Conn) (cmd byte, host string, port uint16, code byte, err error) {
	var h [4]byte
	if _, err := io.ReadFull(c, h[:]); err != nil {
		return 0, "", 0, socksGeneralFailure, errors.New("a truncated SOCKS5 request")
	}
	cmd = h[1]
	if h[0] != 5 || h[2] != 0 {
		return cmd, "", 0, socksGeneralFailure, fmt.Errorf("a malformed SOCKS5 request (version %d, reserved byte %d)", h[0], h[2])
	}
	switch h[3] {
	case 1:
		var a [4]byte
		if _, err := io.ReadFull(c, a[:]); err != nil {
			return cmd, "", 0, socksGeneralFailure, errors.New("a truncated SOCKS5 request")
		}
		host = netip.AddrFrom4(a).String()
	case 4:
		var a [16]byte
		if _, err := io.ReadFull(c, a[:]); err != nil {
			return cmd, "", 0, socksGeneralFailure, errors.New("a truncated SOCKS5 request")
		}
		host = netip.AddrFrom16(a).String()
	case 3:
		var n [1]byte
		if _, err := io.ReadFull(c, n[:]); err != nil {
			return cmd, "", 0, socksGeneralFailure, errors.New("a truncated SOCKS5 request")
		}
		name := make([]byte, n[0])
		if _, err := io.ReadFull(c, name); err != nil {
			return cmd, "", 0, socksGeneralFailure, errors.New("a truncated SOCKS5 request")
		}
		if len(name) == 0 {
			return cmd, "", 0, socksGeneralFailure, errors.New("a SOCKS5 request with an empty host name")
		}
		host = string(name)
	default:
		return cmd, "", 0, socksAddrTypeNotSupport, fmt.Errorf("SOCKS5 address type %d is not supported", h[3])
	}
	var pb [2]byte
	if _, err := io.ReadFull(c, pb[:]); err != nil {
		return cmd, host, 0, socksGeneralFailure, errors.New("a truncated SOCKS5 request")
	}
	port = binary.BigEndian.Uint16(pb[:])
	switch {
	case cmd == 2:
		return cmd, host, port, socksCmdNotSupported, errors.New("SOCKS5 BIND is not supported: the proxy makes outgoing connections only")
	case cmd == 3:
		return cmd, host, port, socksCmdNotSupported, errors.New("SOCKS5 UDP ASSOCIATE is not supported: only TCP leaves the sandbox, through the proxy")
	case cmd != 1:
		return cmd, host, port, socksCmdNotSupported, fmt.Errorf("SOCKS5 command %#x is not supported (CONNECT only)", cmd)
	case port == 0:
		return cmd, host, port, socksNotAllowed, errors.New("the port must be between 1 and 65535")
	}
	return cmd, host, port, 0, nil
}

// socksReply is a reply with the bound address left as 0.0.0.0:0.
func socksReply(code byte) []byte { return []byte{5, code, 0, 1, 0, 0, 0, 0, 0, 0} }

// socksRefuse answers a request that is not carried out and records it.
func (p *Proxy) socksRefuse(c net.Conn, ev Event, code byte, why string) {
	if ev.Verdict == "" {
		ev.Verdict = "refused"
	}
	ev.Reason = why
	_, _ = c.Write(socksReply(code))
	p.report(ev)
	endCleanly(c)
}

// endCleanly ends a refused connection so that its reply arrives: what
// the client sent and nobody read would make the close a reset, which
// can discard the reply before the client reads it.
func endCleanly(c net.Conn) {
	closeWrite(c)
	_ = c.SetReadDeadline(time.Now().Add(time.Second))
	_, _ = io.Copy(io.Discard, io.LimitReader(c, 64<<10))
}

// socksDialCode maps a failed dial to its reply code and verdict: the
// URL policy's refusal at the dial is "not allowed", anything else a
// failure.
func socksDialCode(err error) (byte, string) {
	switch {
	case errors.Is(err, netpolicy.ErrRefused):
		return socksNotAllowed, "refused"
	case errors.Is(err, syscall.ECONNREFUSED):
		return socksConnRefused, "failed"
	case errors.Is(err, syscall.ENETUNREACH):
		return socksNetUnreachable, "failed"
	default:
		return socksHostUnreachable, "failed"
	}
}

// socks4 refuses a SOCKS4 or SOCKS4a request (version byte read): its
// client may resolve names itself, out of the policy's sight.
func (p *Proxy) socks4(c net.Conn) {
	ev := Event{Kind: "socks4", Start: time.Now(), Verdict: "refused",
		Reason: "SOCKS4 is not supported; use SOCKS5 with the proxy resolving names (socks5h://)"}
	// SOCKS4's "request rejected or failed".
	_, _ = c.Write([]byte{0, 0x5B, 0, 0, 0, 0, 0, 0})
	p.report(ev)
	endCleanly(c)
}
