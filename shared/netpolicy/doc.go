// Package netpolicy is the one URL policy of Demiurge: web_extract, MCP
// streamable-HTTP servers and web search providers all go through it.
//
// It works in three steps, each failing closed:
//
//  1. Parse/Check normalise a URL the way a browser would read it (WHATWG
//     host parsing: IDNA, trailing dots, the legacy numeric IPv4 forms
//     2130706433, 0x7f.1, 0177.0.0.1 and 127.1) and refuse what is not
//     plainly a fetchable http(s) origin: other schemes, userinfo,
//     ambiguous authorities, IP literals of a refused class. A host that
//     looks numeric is never handed to DNS.
//  2. Resolve looks the name up and refuses the target when the lookup
//     fails, returns nothing, or returns any refused address (a mixed
//     answer is refused as a whole).
//  3. Client returns an http.Client whose transport verifies every request
//     and every redirect hop again and dials only the addresses it
//     verified, while the Host header and TLS SNI keep the name. It uses
//     no ambient proxy, never turns userinfo into Basic auth, and drops
//     credential headers when a redirect leaves the origin.
//
// Messages and summaries never contain userinfo, path, query or fragment:
// OriginSummary and RefusedError show only scheme://host[:port].
//
// # Test-only hooks
//
// Options.Resolver and Options.AllowLoopbackForTests exist so that tests can
// reach an HTTP server on loopback, which the policy otherwise refuses.
// Production code never sets AllowLoopbackForTests; nothing reads it from
// configuration or the environment. A plugin passes these hooks only from
// its _test.go files, through a constructor argument its production entry
// point leaves zero (see plugins/coding/web_extract.go), so that neither a
// model nor the plugin's environment can switch them on.
package netpolicy
