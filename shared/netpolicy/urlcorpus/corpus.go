// Package urlcorpus is the URL policy's corpus of refused spellings and
// the names its resolver answers, shared by the tests of everything that
// applies the policy (shared/netpolicy, the egress proxy in host/egress),
// so that each is tested against every spelling the corpus knows.
package urlcorpus

import (
	"context"
	"net"
	"net/netip"
)

// Resolver answers from a table (Names, or a test's own), as the policy's
// test-only Resolver hook allows; a name missing from the table fails like
// NXDOMAIN.
type Resolver map[string][]string

// LookupNetIP answers host from the table.
func (r Resolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	answers, ok := r[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	out := make([]netip.Addr, 0, len(answers))
	for _, a := range answers {
		out = append(out, netip.MustParseAddr(a))
	}
	return out, nil
}

// Names are the corpus's names and their DNS answers; any other name is
// NXDOMAIN.
var Names = map[string][]string{
	"loop.test":      {"127.0.0.1"},
	"loop6.test":     {"::1"},
	"mapped.test":    {"::ffff:127.0.0.1"},
	"mixed.test":     {"93.184.215.14", "127.0.0.1"},
	"mixed2.test":    {"127.0.0.1", "8.8.8.8"},
	"mixed6.test":    {"2606:4700::1111", "fe80::1"},
	"nat64.test":     {"64:ff9b::7f00:1"},
	"sixtofour.test": {"2002:7f00:1::1"},
	"compat.test":    {"::7f00:1"},
	"zero.test":      {"0.0.0.0"},
	"zero6.test":     {"::ffff:0.0.0.0"},
	"empty.test":     {},
	"meta.test":      {"169.254.169.254"},
	"meta6.test":     {"fd00:ec2::254"},
	"priv.test":      {"192.168.1.1"},
	"cgnat.test":     {"100.64.1.1"},
	"ula.test":       {"fd12::1"},
	"bcast.test":     {"255.255.255.255"},
	"mcast.test":     {"239.1.1.1"},
	"site.test":      {"127.0.0.1"},
	"mixedpriv.test": {"127.0.0.1", "10.0.0.1"},
}

// RefusedForms are URL forms that must never connect. {P} is the port of
// the counting loopback listener, so a form the policy wrongly accepted
// would show up as an accepted connection there.
var RefusedForms = []string{
	"http://127.0.0.1:{P}/",
	"http://127.1:{P}/",
	"http://127.0.1:{P}/",
	"http://2130706433:{P}/",
	"http://2130706433.:{P}/",
	"http://0x7f000001:{P}/",
	"http://0x7f.1:{P}/",
	"http://0x7f.1.:{P}/",
	"http://0x7f.0.0.1:{P}/",
	"http://0X7F.0X0.0X0.0X1:{P}/",
	"http://0177.0.0.1:{P}/",
	"http://0177.1:{P}/",
	"http://017700000001:{P}/",
	"http://0000000177.0.0.1:{P}/",
	"http://127.000.000.001:{P}/",
	"http://127.0.0.1.:{P}/",
	"http://①②⑦.0.0.1:{P}/",
	"http://127。0。0。1:{P}/",
	"http://１２７.０.０.１:{P}/",
	"http://127．0．0．1:{P}/",
	"http://127｡0｡0｡1:{P}/",
	"http://loc\u00adalhost:{P}/",
	"http://ＬＯＣＡＬＨＯＳＴ:{P}/",
	"http://0ｘ7f.1:{P}/",
	"https://127.0.0.1:{P}/",
	"http://127.0.0.1:0{P}/",
	"http://[::1]:{P}/",
	"http://[0:0:0:0:0:0:0:1]:{P}/",
	"http://[::ffff:127.0.0.1]:{P}/",
	"http://[::ffff:7f00:1]:{P}/",
	"http://[0:0:0:0:0:ffff:127.0.0.1]:{P}/",
	"http://[::127.0.0.1]:{P}/",
	"http://[64:ff9b::127.0.0.1]:{P}/",
	"http://[2002:7f00:1::]:{P}/",
	"http://[2001:0:4136:e378:8000:63bf:80ff:fffe]:{P}/",
	"http://[::ffff:0.0.0.0]:{P}/",
	"http://[::]:{P}/",
	"http://0:{P}/",
	"http://0x0:{P}/",
	"http://0.0.0.0:{P}/",
	"http://localhost:{P}/",
	"http://LOCALHOST:{P}/",
	"http://localhost.:{P}/",
	"http://sub.localhost:{P}/",
	"http://loop.test:{P}/",
	"http://LoOp.TeSt:{P}/",
	"http://loop.test.:{P}/",
	"http://loop6.test:{P}/",
	"http://mapped.test:{P}/",
	"http://mixed.test:{P}/",
	"http://mixed2.test:{P}/",
	"http://mixed6.test:{P}/",
	"http://nat64.test:{P}/",
	"http://sixtofour.test:{P}/",
	"http://compat.test:{P}/",
	"http://zero.test:{P}/",
	"http://zero6.test:{P}/",
	"http://empty.test:{P}/",
	"http://nxdomain.test:{P}/",
	"http://user:pw@127.0.0.1:{P}/",
	"http://user@loop.test:{P}/",
	"http://public.test:{P}@127.0.0.1:{P}/",
	"http://public.test\\@127.0.0.1:{P}/",
	"http://127.0.0.1:{P}\\@public.test/",
	"http://127.0.0.1:{P}#@public.test/",
	"http://127.0.0.1:{P}?@public.test/",
	"http://127.0.0.1:{P}/@public.test",
	"ftp://127.0.0.1:{P}/",
	"gopher://127.0.0.1:{P}/",
	"ws://127.0.0.1:{P}/",
	"file:///etc/passwd",
	"http:/127.0.0.1:{P}/",
	"http:127.0.0.1:{P}/",
	"http://127.0.0.1%00.public.test:{P}/",
	"http://%6c%6f%63%61%6c%68%6f%73%74:{P}/",
	"http://[fe80::1%25lo]:{P}/",
	"http://[::1%25lo]:{P}/",
	"http://127.0.0.1 :{P}/",
	"http://10.0.0.1:{P}/",
	"http://172.16.0.1:{P}/",
	"http://192.168.0.1:{P}/",
	"http://169.254.169.254:{P}/latest/meta-data/",
	"http://0xa9fea9fe:{P}/",
	"http://2852039166:{P}/",
	"http://0251.0376.0251.0376:{P}/",
	"http://169.254.43518:{P}/",
	"http://[::ffff:a9fe:a9fe]:{P}/",
	"http://[::ffff:10.0.0.1]:{P}/",
	"http://[fd00:ec2::254]:{P}/",
	"http://100.100.100.200:{P}/",
	"http://100.64.0.1:{P}/",
	"http://224.0.0.1:{P}/",
	"http://255.255.255.255:{P}/",
	"http://240.0.0.1:{P}/",
	"http://192.0.2.1:{P}/",
	"http://198.18.0.1:{P}/",
	"http://[fc00::1]:{P}/",
	"http://[fe80::1]:{P}/",
	"http://[ff02::1]:{P}/",
	"http://[2001:db8::1]:{P}/",
	"http://[64:ff9b::a9fe:a9fe]:{P}/",
	"http://[2002:a9fe:a9fe::]:{P}/",
	"http://meta.test:{P}/",
	"http://meta6.test:{P}/",
	"http://metadata.google.internal:{P}/",
	"http://priv.test:{P}/",
	"http://cgnat.test:{P}/",
	"http://ula.test:{P}/",
	"http://bcast.test:{P}/",
	"http://mcast.test:{P}/",
}
