package webextract

import (
	"bufio"
	"context"
	"errors"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/net/html/charset"
	"golang.org/x/text/transform"

	"demiurge.dev/shared/netpolicy"
)

// Limits of one fetch.
const (
	DefaultMaxBytes = 10 << 20
	DefaultTimeout  = 30 * time.Second
	DefaultMaxChars = 20000
	MaxMaxChars     = 200000
	userAgent       = "demiurge-web-extract/0.1 (+https://demiurge.dev)"
	accept          = "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.1"
)

// Options configure a Fetcher. The zero value is the production setting.
type Options struct {
	// Policy is the URL policy's options. Its Resolver and
	// AllowLoopbackForTests are for tests only (see the package doc).
	Policy netpolicy.Options
	// MaxBytes caps the body bytes read (default 10 MiB).
	MaxBytes int64
	// Timeout bounds the whole fetch, redirects and body included
	// (default 30 s).
	Timeout time.Duration
}

// Fetcher fetches pages under one URL policy.
type Fetcher struct{ opts Options }

// New returns a Fetcher.
func New(opts Options) *Fetcher {
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	return &Fetcher{opts: opts}
}

// Failure is a soft failure: why the fetch gave no usable page.
type Failure struct {
	// Code is one of refused, invalid_url, timeout, connect_failed,
	// http_status, redirect_elsewhere, unsupported_content_type, redirect_loop,
	// too_many_redirects, read_failed.
	Code    string `json:"code"`
	Message string `json:"message"`
	// Next is the URL a redirect_elsewhere pointed to, for the model to
	// fetch in a call of its own; it is never in the structured result
	// (which holds origins only).
	Next string `json:"-"`
}

// Result is the outcome of one fetch. It never holds userinfo, path, query
// or fragment of the fetched URLs, only origins.
type Result struct {
	// Origin is the final origin after redirects (the requested one when
	// nothing was fetched).
	Origin string `json:"origin"`
	// Addresses are the verified addresses of the final origin.
	Addresses []string `json:"addresses,omitempty"`
	Redirects int      `json:"redirects"`
	Status    int      `json:"status,omitempty"`
	// ContentType is the media type, without parameters.
	ContentType string `json:"content_type,omitempty"`
	Title       string `json:"title,omitempty"`
	Text        string `json:"-"`
	// FromMain says the text is the page's main content (main, article).
	FromMain bool `json:"from_main,omitempty"`
	// BytesRead counts the body bytes read; ContentLength is what the
	// server declared (-1: not declared); ByteCap is the cap.
	BytesRead     int64 `json:"bytes_read"`
	ContentLength int64 `json:"content_length"`
	ByteCap       int64 `json:"byte_cap"`
	// Chars is the length of the returned text; TotalChars what the text
	// came to before the character cap.
	Chars      int `json:"chars"`
	TotalChars int `json:"total_chars"`
	// Truncated is true when a cap or a timeout cut the page; StoppedBy
	// says which (byte_cap, max_chars, timeout, read_error).
	Truncated bool          `json:"truncated"`
	StoppedBy []string      `json:"stopped_by,omitempty"`
	Failure   *Failure      `json:"failure,omitempty"`
	Elapsed   time.Duration `json:"-"`
}

// Fetch fetches rawURL and extracts its text, at most maxChars characters
// (0: DefaultMaxChars). It never returns an error: failures are in
// Result.Failure.
func (f *Fetcher) Fetch(ctx context.Context, rawURL string, maxChars int) Result {
	start := time.Now()
	res := f.fetch(ctx, rawURL, clampChars(maxChars))
	res.Elapsed = time.Since(start)
	return res
}

func clampChars(n int) int {
	switch {
	case n <= 0:
		return DefaultMaxChars
	case n > MaxMaxChars:
		return MaxMaxChars
	}
	return n
}

func (f *Fetcher) fetch(ctx context.Context, rawURL string, maxChars int) Result {
	res := Result{Origin: netpolicy.OriginSummary(rawURL), ByteCap: f.opts.MaxBytes, ContentLength: -1}
	var (
		mu   sync.Mutex
		last netpolicy.Decision
	)
	popts := f.opts.Policy
	popts.OnDecision = func(d netpolicy.Decision) {
		mu.Lock()
		defer mu.Unlock()
		if d.Phase == "redirect" {
			res.Redirects++
		}
		if d.Allowed {
			last = d
		}
	}
	policy := netpolicy.New(popts)
	target, err := policy.Check(rawURL)
	if err != nil {
		return fail(res, err)
	}
	res.Origin = target.Origin()
	client := policy.Client()
	defer client.CloseIdleConnections()
	// The operator approved a fetch from target's origin (the card shows
	// it, never the path or query that could name a redirect): a
	// redirect to another host, or to another port of it, is not
	// followed but answered, and a fetch from there is another call,
	// which asks again. The policy's
	// verdict comes first, so a refused hop is still "refused".
	checkHop := client.CheckRedirect
	var elsewhere *url.URL
	client.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if err := checkHop(req, via); err != nil {
			return err
		}
		if next, err := netpolicy.Parse(req.URL.String()); err != nil || !sameApproval(target, next) {
			elsewhere = req.URL
			return http.ErrUseLastResponse
		}
		return nil
	}

	ctx, cancel := context.WithTimeout(ctx, f.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target.URL(), nil)
	if err != nil {
		return failWith(res, "invalid_url", "the URL cannot be requested: "+netpolicy.SafeMessage(err))
	}
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set("Accept", accept)
	resp, err := client.Do(req)
	mu.Lock()
	final := last
	mu.Unlock()
	if final.Origin != "" {
		res.Origin = final.Origin
		for _, a := range final.Addrs {
			res.Addresses = append(res.Addresses, a.String())
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return failWith(res, "timeout", "no response from "+res.Origin+" within "+f.opts.Timeout.String())
		}
		return fail(res, err)
	}
	defer resp.Body.Close()
	res.Status = resp.StatusCode
	res.ContentLength = resp.ContentLength
	if resp.StatusCode >= 400 {
		return failWith(res, "http_status", "HTTP "+resp.Status+" from "+res.Origin)
	}
	if elsewhere != nil {
		res = failWith(res, "redirect_elsewhere", "HTTP "+resp.Status+" from "+res.Origin+" redirects to another origin, "+
			netpolicy.OriginSummary(elsewhere.String())+", which this call's approval does not cover; it was not followed")
		res.Failure.Next = elsewhere.String()
		return res
	}
	if resp.StatusCode >= 300 {
		return failWith(res, "http_status", "HTTP "+resp.Status+" from "+res.Origin+" without a usable redirect")
	}
	body := &capReader{r: resp.Body, limit: f.opts.MaxBytes}
	br := bufio.NewReaderSize(body, 4096)
	mediaType, kind := contentKind(resp.Header.Get("Content-Type"), br)
	res.ContentType = mediaType
	if kind == kindOther {
		return failWith(res, "unsupported_content_type",
			"the content type "+mediaType+" is not text; web_extract reads HTML and text pages")
	}
	decoded := decoder(br, resp.Header.Get("Content-Type"))
	var page Page
	var readErr error
	if kind == kindHTML {
		page, readErr = ExtractHTML(decoded, resp.Request.URL, maxChars)
	} else {
		page, readErr = readText(decoded, maxChars)
	}
	res.Title, res.Text, res.FromMain = page.Title, page.Text, page.FromMain
	res.Chars, res.TotalChars = page.Chars, page.TotalChars
	res.BytesRead = body.n
	if body.truncated {
		res.StoppedBy = append(res.StoppedBy, "byte_cap")
	}
	if page.TextTruncated {
		res.StoppedBy = append(res.StoppedBy, "max_chars")
	}
	if readErr != nil {
		stop := "read_error"
		if ctx.Err() != nil {
			stop = "timeout"
		}
		if res.BytesRead == 0 {
			return failWith(res, stop, "reading the body of "+res.Origin+" failed: "+netpolicy.SafeMessage(readErr))
		}
		res.StoppedBy = append(res.StoppedBy, stop)
	}
	res.Truncated = len(res.StoppedBy) > 0
	return res
}

// decoder converts the body to UTF-8 from the charset the header or the
// page's first KiB declares. It only peeks, so a slow or failing body
// loses nothing; an unknown charset is read as UTF-8 (invalid sequences
// become U+FFFD later).
func decoder(br *bufio.Reader, contentType string) io.Reader {
	head, _ := br.Peek(1024)
	enc, name, _ := charset.DetermineEncoding(head, contentType)
	if enc == nil || name == "utf-8" {
		return br
	}
	return transform.NewReader(br, enc.NewDecoder())
}

type contentKindT int

const (
	kindOther contentKindT = iota
	kindHTML
	kindText
)

// contentKind decides from the declared type, or by sniffing the first
// bytes when none is declared, whether the body is HTML, other text, or
// something web_extract does not read.
func contentKind(header string, br *bufio.Reader) (string, contentKindT) {
	mt, _, err := mime.ParseMediaType(header)
	if header == "" || err != nil {
		head, _ := br.Peek(512)
		mt, _, _ = mime.ParseMediaType(http.DetectContentType(head))
	}
	mt = strings.ToLower(mt)
	switch {
	case mt == "text/html" || mt == "application/xhtml+xml":
		return mt, kindHTML
	case strings.HasPrefix(mt, "text/"), mt == "application/json", mt == "application/xml",
		mt == "application/javascript", mt == "application/x-ndjson",
		strings.HasSuffix(mt, "+json"), strings.HasSuffix(mt, "+xml"):
		return mt, kindText
	}
	return mt, kindOther
}

// readText reads plain text under the character cap, counting all of it.
func readText(r io.Reader, maxChars int) (Page, error) {
	out := &strings.Builder{}
	p := Page{}
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			line = clean(line)
			n := utf8.RuneCountInString(line)
			p.TotalChars += n
			if !p.TextTruncated {
				if p.Chars+n > maxChars {
					rs := []rune(line)[:maxChars-p.Chars]
					out.WriteString(string(rs))
					p.Chars = maxChars
					p.TextTruncated = true
				} else {
					out.WriteString(line)
					p.Chars += n
				}
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			p.Text = out.String()
			return p, err
		}
	}
	p.Text = out.String()
	return p, nil
}

// capReader passes at most limit bytes and notes whether the body had
// more (it reads one byte past the cap to know).
type capReader struct {
	r         io.Reader
	limit, n  int64
	truncated bool
	probed    bool
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.n >= c.limit {
		if !c.probed {
			c.probed = true
			var one [1]byte
			if k, _ := io.ReadFull(c.r, one[:]); k > 0 {
				c.truncated = true
			}
		}
		return 0, io.EOF
	}
	if rest := c.limit - c.n; int64(len(p)) > rest {
		p = p[:rest]
	}
	k, err := c.r.Read(p)
	c.n += int64(k)
	return k, err
}

func fail(res Result, err error) Result {
	var re *netpolicy.RefusedError
	if errors.As(err, &re) {
		code := "refused"
		switch {
		case re.Class == "redirect-loop":
			code = "redirect_loop"
		case re.Class == "redirect" && strings.HasPrefix(re.Reason, "stopped after"):
			code = "too_many_redirects"
		case re.Class == "invalid-url" || re.Class == "invalid-host" || re.Class == "scheme":
			code = "invalid_url"
		}
		// The origin and the code lead the rendered message already:
		// the reason alone follows ("refused: refused ORIGIN: ..." was a stutter).
		return failWith(res, code, re.Reason)
	}
	var ue *url.Error
	if errors.As(err, &ue) && ue.Timeout() {
		return failWith(res, "timeout", "timed out connecting to "+res.Origin)
	}
	return failWith(res, "connect_failed", netpolicy.SafeMessage(err))
}

func failWith(res Result, code, msg string) Result {
	res.Failure = &Failure{Code: code, Message: msg}
	return res
}

// Summary is a one-line description of res for the operator's card.
func (r Result) Summary() string {
	if r.Failure != nil {
		return "web_extract " + r.Origin + ": " + r.Failure.Code + ": " + r.Failure.Message
	}
	s := "web_extract " + r.Origin + ": " + strconv.Itoa(r.Chars) + " chars from " + strconv.FormatInt(r.BytesRead, 10) + " bytes"
	if r.Truncated {
		s += " (truncated: " + strings.Join(r.StoppedBy, ", ") + ")"
	}
	return s
}

// sameApproval says whether a redirect to next stays within what the
// operator approved for target: the same host and port, or http to https
// on the default ports (http://h/ to https://h/). Another port of the
// same host is another service (stop 52: a page's server sent the fetch
// to its own 6379).
func sameApproval(target, next netpolicy.Target) bool {
	if next.Host != target.Host {
		return false
	}
	port := func(t netpolicy.Target) string {
		_, p, _ := net.SplitHostPort(t.HostPort())
		return p
	}
	if port(next) == port(target) {
		return true
	}
	isDefault := func(t netpolicy.Target) bool {
		return (t.Scheme == "http" && port(t) == "80") || (t.Scheme == "https" && port(t) == "443")
	}
	return isDefault(target) && isDefault(next)
}
