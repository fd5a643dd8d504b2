package main

import (
	"io"
	"net"
	"net/http"
	"net/netip"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/websocket"

	"demiurge.dev/host/egress"
)

// wsClient is Node's own HTTP client making a WebSocket handshake through
// the proxy that http_proxy names, the way a proxy-aware client sends a
// plain http request (absolute form), then one masked text frame; it
// prints the status and the echoed text.
const wsClient = `
const http = require('http');
const proxy = new URL(process.env.http_proxy);
const target = process.argv[2];
const req = http.request({host: proxy.hostname, port: proxy.port, path: 'http://' + target + '/ws', headers: {
  Host: target, Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13',
  'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==', Origin: 'http://' + target}});
req.on('upgrade', (res, sock, head) => {
  const msg = 'hello from node', mask = Buffer.from([1, 2, 3, 4]);
  const f = Buffer.alloc(6 + msg.length);
  f[0] = 0x81; f[1] = 0x80 | msg.length; mask.copy(f, 2);
  for (let i = 0; i < msg.length; i++) f[6 + i] = msg.charCodeAt(i) ^ mask[i % 4];
  sock.write(f);
  let buf = head;
  sock.on('data', d => {
    buf = Buffer.concat([buf, d]);
    if (buf.length >= 2 + msg.length) { console.log(res.statusCode + ' ' + buf.subarray(2, 2 + msg.length)); sock.destroy(); }
  });
});
req.on('response', res => { console.log('no upgrade: ' + res.statusCode); res.on('data', d => process.stderr.write(d)); res.on('end', () => process.exit(1)); });
req.on('error', e => { console.error(e.message); process.exit(1); });
req.end();
`

// TestWebSocketThroughTheProxy: from inside the sandbox, Node's HTTP
// client upgrades a plain http request to a WebSocket through the proxy
// and exchanges a frame with a real WebSocket server (x/net/websocket)
// reached by the operator's allowance; the same handshake to an address
// the policy refuses gets 403, and limited mode refuses the upgrade.
func TestWebSocketThroughTheProxy(t *testing.T) {
	needTool(t, "node")
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/ws", websocket.Handler(func(c *websocket.Conn) { io.Copy(c, c) }))
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	addr := ln.Addr().(*net.TCPAddr).AddrPort()
	f := newFixture(t)
	writeFile(t, filepath.Join(f.ws, "ws.js"), wsClient)
	run := func(cfg egress.Config, target string) (result, *egress.Proxy) {
		p, px := proxiedPolicy(t, f, cfg)
		return f.run(t, p, "node ws.js "+target), px
	}
	r, px := run(egress.Config{Allow: []netip.AddrPort{addr}}, addr.String())
	if r.exit != 0 || strings.TrimSpace(r.stdout) != "101 hello from node" {
		t.Fatalf("WebSocket through the proxy: exit %d, stdout %q, stderr %s", r.exit, r.stdout, r.stderr)
	}
	if ev := px.Events(); len(ev) != 1 || ev[0].Status != 101 || ev[0].Verdict != "allowed" || ev[0].Recv == 0 || ev[0].Sent == 0 {
		t.Fatalf("events: %+v", ev)
	}
	r, _ = run(egress.Config{Allow: []netip.AddrPort{addr}}, "127.0.0.2:"+strings.Split(addr.String(), ":")[1])
	if r.exit == 0 || !strings.Contains(r.stdout, "no upgrade: 403") {
		t.Errorf("a refused address: exit %d, stdout %q, stderr %s", r.exit, r.stdout, r.stderr)
	}
	r, _ = run(egress.Config{Limited: true, Allow: []netip.AddrPort{addr}}, addr.String())
	if r.exit == 0 || !strings.Contains(r.stdout, "no upgrade: 403") {
		t.Errorf("limited mode: exit %d, stdout %q, stderr %s", r.exit, r.stdout, r.stderr)
	}
}
