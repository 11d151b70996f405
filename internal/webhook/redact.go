package webhook

import (
	"net/url"
	"strings"
)

// Redact is a URL as the console, the logs and the metrics show it: its
// scheme, host and path without what authenticates a request: no user or
// password, no query (a token often rides there), no fragment, and in a
// webhook path of Discord's shape (/api/webhooks/{id}/{token}, and any
// .../webhooks/{id}/{token}: a proxy or another service may carry its
// token the same way) the token replaced with "…". Whatever cannot be parsed shows as "…": a
// URL is never shown that could carry a secret Redact did not recognise.
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return "…"
	}
	segs := strings.Split(u.EscapedPath(), "/")
	for i := 0; i+2 < len(segs); i++ {
		if segs[i] == "webhooks" {
			segs[i+2] = "…" // segs[i+1] is the webhook's id: it names, not authenticates
			break
		}
	}
	return u.Scheme + "://" + u.Host + strings.Join(segs, "/")
}
