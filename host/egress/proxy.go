package egress

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"maps"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"demiurge.dev/shared/netpolicy"
)

// Config is what one proxy lets through. Only the operator sets Operator,
// Limited and Allow (the host's environment); Core comes from the core
// and can only narrow Operator.
type Config struct {
	// Operator is the operator's domain allowlist; empty allows any
	// public host on the default ports.
	Operator []Rule
	// OperatorName is how a refusal names Operator; "" is the operator's
	// allowlist (DEMIURGE_EGRESS_ALLOW). A package's proxy holds the
	// hosts its package.json declared there.
	OperatorName string
	// Core is the core's allowlist; when set, a target must pass it too.
	Core []Rule
	// Limited allows only GET and HEAD requests over plain http, and no
	// CONNECT tunnel (its method is encrypted, so the proxy cannot see it).
	Limited bool
	// Allow are the operator's exact ADDRESS:PORT allowances for a refused
	// address (a registry or test server on loopback).
	Allow []netip.AddrPort
	// Resolver replaces DNS (tests).
	Resolver netpolicy.Resolver
	// DialTimeout bounds one upstream connection attempt (default 10 s).
	DialTimeout time.Duration
	// HeaderTimeout bounds what a client sends before the proxy can act
	// on it (a request head, a SOCKS5 greeting and request) and a kept-alive
	// connection's wait for its next request; default 30 s (tests).
	HeaderTimeout time.Duration
	// Unkept: events go to onConn only and Events stays empty. A proxy
	// that lives as long as a plugin does would otherwise keep every
	// connection it ever saw.
	Unkept bool
}

// maxPendingEvents bounds the events handed to onConn that it has not
// finished with (an audit append waiting for the disk): beyond it, a
// connection's handler waits for a place before it ends, so a client
// opening thousands of connections slows down instead of growing the
// host's goroutines and memory.
const maxPendingEvents = 32

// maxConns bounds the connections one proxy serves at once (a plugin's,
// or one call's command): each holds goroutines and buffers in the host,
// and a tunnel an upstream socket too. Past it a new connection is closed
// at once and audited as refused, "too many connections"; a sandbox
// helper's hand-over gives its place back as soon as it is read.
const maxConns = 64

// Event is one connection through the proxy: what it asked for, what the
// URL policy resolved and dialled, and how many bytes went each way
// (a tunnel's raw bytes; a plain request's bodies).
type Event struct {
	// Kind is "connect" (a tunnel), "http" (a plain request), "socks5",
	// "socks4", or "connection" (refused before its protocol was read).
	Kind    string `json:"kind"`
	Method  string `json:"method"`
	Host    string `json:"host"`
	Port    uint16 `json:"port"`
	Addr    string `json:"addr,omitempty"` // the address dialled
	Sent    int64  `json:"bytes_sent"`     // command to server
	Recv    int64  `json:"bytes_received"` // server to command
	Verdict string `json:"verdict"`        // "allowed", "refused" or "failed"
	Reason  string `json:"reason,omitempty"`
	// Allowance is the operator's ADDRESS:PORT that let a refused address
	// through.
	Allowance  string    `json:"allowance,omitempty"`
	Start      time.Time `json:"-"`
	DurationMS int64     `json:"duration_ms"`
	Status     int       `json:"status,omitempty"` // a plain request's response status
}

// Proxy is an HTTP proxy (CONNECT and absolute-URI requests) and a
// SOCKS5 proxy (CONNECT) on one unix socket of its own, applying the URL
// policy to every connection.
type Proxy struct {
	cfg    Config
	pol    *netpolicy.Policy
	dir    string
	ln     net.Listener
	httpLn *handoff
	srv    *http.Server
	onConn func(Event)

	mu      sync.Mutex
	tunnels map[net.Conn]struct{}
	// listeners are the command namespaces' listeners handed over by
	// sandbox helpers.
	listeners map[*net.TCPListener]struct{}
	events    []Event // the first maxKeptEvents
	folded    Folded  // the rest
	closed    bool
	// pending holds a place for each event onConn has not finished;
	// waiting counts the reports waiting for one (tests).
	pending chan struct{}
	waiting atomic.Int32
	// conns holds a place for each connection being served (maxConns).
	conns  chan struct{}
	active sync.WaitGroup

	// life ends at Close: a SOCKS5 request's lookup and dial in
	// progress end with it instead of running out their timeouts (an
	// http request's context already ends when the server closes).
	life    context.Context
	endLife context.CancelFunc
}

// Start listens on a new unix socket in a private directory (a short
// path: a socket path has at most 107 bytes) and serves until Close.
// onConn, when set, receives every connection's event as it ends.
func Start(cfg Config, onConn func(Event)) (*Proxy, error) {
	dir, err := os.MkdirTemp("", "demiurge-egress-")
	if err != nil {
		return nil, fmt.Errorf("egress proxy: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("egress proxy: %w", err)
	}
	ln, err := net.Listen("unix", filepath.Join(dir, "proxy.sock"))
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("egress proxy: %w", err)
	}
	p := &Proxy{
		cfg: cfg, dir: dir, ln: ln, onConn: onConn, tunnels: map[net.Conn]struct{}{}, listeners: map[*net.TCPListener]struct{}{},
		pending: make(chan struct{}, maxPendingEvents), conns: make(chan struct{}, maxConns),
		pol: netpolicy.New(netpolicy.Options{Resolver: cfg.Resolver, AllowPrivate: cfg.Allow, DialTimeout: cfg.DialTimeout}),
	}
	p.life, p.endLife = context.WithCancel(context.Background())
	p.srv = &http.Server{Handler: p, ErrorLog: log.New(io.Discard, "", 0)}
	p.srv.ReadHeaderTimeout = p.headerTimeout()
	p.srv.IdleTimeout = p.headerTimeout()
	p.httpLn = newHandoff(ln.Addr())
	go p.srv.Serve(p.httpLn)
	go p.serve()
	return p, nil
}

// Socket is the unix socket's path.
func (p *Proxy) Socket() string { return p.ln.Addr().String() }

// Events are the connections that ended so far, the first
// maxKeptEvents of them; Folded sums the rest.
func (p *Proxy) Events() []Event {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.events)
}

// Folded sums the connections that ended past the first maxKeptEvents
// (Count 0: none).
func (p *Proxy) Folded() Folded {
	p.mu.Lock()
	defer p.mu.Unlock()
	f := p.folded
	f.Hosts = slices.Clone(f.Hosts)
	if f.Verdicts != nil {
		f.Verdicts = maps.Clone(f.Verdicts)
	}
	return f
}

// Close stops the proxy: the socket, every request and tunnel (their
// connections fail), then waits briefly for their events.
func (p *Proxy) Close() error {
	p.endLife()
	p.mu.Lock()
	p.closed = true
	for c := range p.tunnels {
		c.Close()
	}
	for l := range p.listeners {
		l.Close()
	}
	p.mu.Unlock()
	p.ln.Close()
	err := p.srv.Close()
	done := make(chan struct{})
	go func() { p.active.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
	}
	os.RemoveAll(p.dir)
	return err
}

func (p *Proxy) report(ev Event) {
	ev.DurationMS = time.Since(ev.Start).Milliseconds()
	ev = clipEvent(ev)
	if !p.cfg.Unkept {
		p.mu.Lock()
		if len(p.events) < maxKeptEvents {
			p.events = append(p.events, ev)
		} else {
			p.folded.fold(ev)
		}
		p.mu.Unlock()
	}
	if p.onConn != nil {
		// Off the connection's path: a plain request's response ends
		// only when its handler returns, and the audit writes to disk.
		// At most maxPendingEvents at a time: past that the handler
		// waits here (back-pressure on the client, whose connection
		// this is). Every caller is inside a handler that holds active,
		// so Close still waits for it.
		select {
		case p.pending <- struct{}{}:
		default:
			p.waiting.Add(1)
			p.pending <- struct{}{}
			p.waiting.Add(-1)
		}
		p.active.Add(1)
		go func() {
			defer func() { <-p.pending; p.active.Done() }()
			p.onConn(ev)
		}()
	}
}

// ServeHTTP answers one proxy request.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.active.Add(1)
	defer p.active.Done()
	if r.Method == http.MethodConnect {
		p.tunnel(w, r)
		return
	}
	p.forward(w, r)
}

// target is a request's destination after the allowlists and the URL
// policy: the normalised host and the addresses it may be dialled at.
type target struct {
	host  string
	port  uint16
	addrs []netip.Addr
}

// admit applies the allowlists and the URL policy to host:port; the
// error is what the command is told.
func (p *Proxy) admit(ctx context.Context, host string, port uint16) (target, error) {
	if err := oneHost(host); err != nil {
		return target{}, err
	}
	t, err := netpolicy.Parse("http://" + bracket(host) + "/")
	if err != nil {
		return target{}, errors.New(netpolicy.SafeMessage(err))
	}
	name := t.Host
	allowance := t.IsLiteral() && slices.Contains(p.cfg.Allow, netip.AddrPortFrom(t.Addr.Unmap(), port))
	if !allowance && !allowedBy(p.cfg.Operator, name, port) {
		if len(p.cfg.Operator) == 0 {
			return target{}, fmt.Errorf("%s:%d: only ports 80 and 443 are allowed; the operator can name another (DEMIURGE_EGRESS_ALLOW=host:port)", name, port)
		}
		if p.cfg.OperatorName != "" {
			return target{}, fmt.Errorf("%s:%d is not among %s", name, port, p.cfg.OperatorName)
		}
		return target{}, fmt.Errorf("%s:%d is not on the operator's allowlist (DEMIURGE_EGRESS_ALLOW)", name, port)
	}
	if len(p.cfg.Core) > 0 && !allowedBy(p.cfg.Core, name, port) {
		return target{}, fmt.Errorf("%s:%d is not on the core's allowlist (agent.yaml sandbox.network.allow)", name, port)
	}
	vt, addrs, err := p.pol.VerifyHostPort(ctx, name, port)
	if err != nil {
		return target{}, errors.New(netpolicy.SafeMessage(err))
	}
	return target{host: vt.Host, port: port, addrs: addrs}, nil
}

// oneHost refuses a host that would not be read as itself inside a URL
// (a SOCKS5 name is any bytes): a delimiter, a space or control byte, or
// a colon outside an IPv6 address, so "a.test/@127.0.0.1" is never taken
// apart into another host.
func oneHost(host string) error {
	for i := 0; i < len(host); i++ {
		if c := host[i]; c <= ' ' || c == 0x7f || strings.IndexByte("/?#@\\[]%", c) >= 0 {
			return fmt.Errorf("%q is not a host name or address", host)
		}
	}
	if strings.Contains(host, ":") {
		if a, err := netip.ParseAddr(host); err != nil || !a.Is6() {
			return fmt.Errorf("%q is not a host name or address", host)
		}
	}
	return nil
}

func bracket(host string) string {
	if a, err := netip.ParseAddr(host); err == nil && a.Is6() {
		return "[" + host + "]"
	}
	return host
}

// refuse answers a refused request and records it.
func (p *Proxy) refuse(w http.ResponseWriter, ev Event, code int, why string) {
	ev.Verdict, ev.Reason = "refused", why
	if code == http.StatusBadGateway {
		ev.Verdict = "failed"
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Connection", "close")
	w.WriteHeader(code)
	fmt.Fprintf(w, "demiurge egress proxy: %s\n", why)
	p.report(ev)
}

// splitPort reads a port of host:port or the default.
func splitPort(s string, def uint16) (uint16, bool) {
	if s == "" {
		return def, def != 0
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 65535 {
		return 0, false
	}
	return uint16(n), true
}
