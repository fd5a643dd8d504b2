package netpolicy

import (
	"errors"
	"net/url"
)

// ErrRefused is matched (errors.Is) by every refusal of this package.
var ErrRefused = errors.New("url refused by the network policy")

// RefusedError says why the policy refused a target. Its message holds only
// the credential-free origin, never userinfo, path, query or fragment.
type RefusedError struct {
	// Origin is the credential-free scheme://host[:port], or a placeholder
	// when the URL could not be parsed that far.
	Origin string
	// Class names the refused category: "scheme", "userinfo",
	// "invalid-url", "invalid-host", "loopback", "private", "metadata",
	// "dns-failure", "mixed-answer", "redirect", ...
	Class  string
	Reason string
}

func (e *RefusedError) Error() string {
	return "refused " + e.Origin + ": " + e.Reason
}

// Unwrap makes errors.Is(err, ErrRefused) true.
func (e *RefusedError) Unwrap() error { return ErrRefused }

func refused(origin, class, reason string) *RefusedError {
	return &RefusedError{Origin: origin, Class: class, Reason: reason}
}

// SafeMessage returns a message for err that is safe to show to a model or
// an operator: a refusal as itself, and any other error of an http.Client
// without the URL (which *url.Error prints in full, path and query
// included).
func SafeMessage(err error) string {
	if err == nil {
		return ""
	}
	var re *RefusedError
	if errors.As(err, &re) {
		return re.Error()
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		if ue.Timeout() {
			return ue.Op + " " + OriginSummary(ue.URL) + ": timed out"
		}
		return ue.Op + " " + OriginSummary(ue.URL) + ": " + SafeMessage(ue.Err)
	}
	return err.Error()
}
