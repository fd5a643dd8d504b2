package main

import (
	_ "embed"
	"fmt"
	"strings"

	"demiurge.dev/plugins/coding/webextract"
	"demiurge.dev/sdk"
)

//go:embed web_extract.md
var webExtractDoc string

type webExtractParams struct {
	URL      string `json:"url" jsonschema_description:"The http or https URL of the page to read."`
	MaxChars int    `json:"max_chars,omitempty" jsonschema_description:"Maximum characters of text to return (default 20000, at most 200000)."`
}

func newWebExtract() sdk.Tool { return newWebExtractWith(webextract.Options{}) }

// newWebExtractWith is the constructor with fetch options. Production uses
// the zero Options; only tests pass the URL policy's test hooks (a
// resolver and the loopback allowance), so nothing a model sends and no
// environment variable can make the plugin reach loopback.
func newWebExtractWith(opts webextract.Options) sdk.Tool {
	f := webextract.New(opts)
	return sdk.Define(sdk.Spec{
		Name:        "web_extract",
		Description: webExtractDoc,
		Metadata:    sdk.Metadata{Risk: "medium", Capability: "network.fetch", ApprovalPolicy: "prompt", DisplayPolicy: "summary"},
		Effect:      sdk.EffectNetwork,
		Subjects:    []sdk.Subject{sdk.FetchesURL("url")},
	}, func(ctx *sdk.Context, p webExtractParams) (*sdk.Result, error) {
		if p.MaxChars < 0 {
			return sdk.Errorf("invalid_argument", "max_chars must be positive (default %d)", webextract.DefaultMaxChars), nil
		}
		r := f.Fetch(ctx, p.URL, p.MaxChars)
		if r.Failure != nil {
			if r.Failure.Next != "" {
				res := sdk.Errorf(r.Failure.Code, "web_extract failed: %s. To read it, call web_extract with %s (the operator is asked for that origin).", r.Failure.Message, r.Failure.Next)
				res.Structured = r
				return res.WithDisplay(r.Summary()), nil
			}
			res := sdk.Errorf(r.Failure.Code, "web_extract failed: %s", r.Failure.Message)
			res.Structured = r
			return res.WithDisplay(r.Summary()), nil
		}
		return (&sdk.Result{Content: renderExtract(r), Structured: r}).WithDisplay(r.Summary()), nil
	})
}

// renderExtract puts the title first and a footer last that says where
// the text came from and what, if anything, was cut.
func renderExtract(r webextract.Result) string {
	var b strings.Builder
	if r.Title != "" {
		fmt.Fprintf(&b, "Title: %s\n\n", r.Title)
	}
	b.WriteString(r.Text)
	if r.Text != "" && !strings.HasSuffix(r.Text, "\n") {
		b.WriteByte('\n')
	}
	if r.Text == "" {
		b.WriteString("(the page has no readable text)\n")
	}
	fmt.Fprintf(&b, "\n[%s: %s", r.Origin, r.ContentType)
	if r.FromMain {
		b.WriteString(", main content")
	}
	fmt.Fprintf(&b, "; %d of %d chars; %d bytes read", r.Chars, r.TotalChars, r.BytesRead)
	if r.ContentLength >= 0 {
		fmt.Fprintf(&b, " of %d", r.ContentLength)
	}
	if r.Redirects > 0 {
		fmt.Fprintf(&b, "; %d redirects", r.Redirects)
	}
	if r.Truncated {
		fmt.Fprintf(&b, "; truncated by %s", strings.Join(r.StoppedBy, ", "))
		for _, s := range r.StoppedBy {
			if s == "max_chars" && r.Chars < webextract.MaxMaxChars {
				fmt.Fprintf(&b, "; a larger max_chars (up to %d) returns more", webextract.MaxMaxChars)
			}
		}
	}
	b.WriteString("]")
	return b.String()
}
