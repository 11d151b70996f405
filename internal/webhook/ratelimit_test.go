package webhook

import (
	"net/http"
	"testing"
	"time"
)

// TestWait reads the answers Discord documents on its rate limits page
// (docs.discord.com/developers/topics/rate-limits: the header example, the
// 429 of a per-route and of a global limit) and the two forms of
// Retry-After (RFC 9110).
func TestWait(t *testing.T) {
	now := time.Date(2026, 11, 26, 7, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name   string
		status int
		header map[string]string
		body   string
		want   time.Duration
		ok     bool
	}{
		{"Discord's per-route 429: the body's retry_after, finer than Retry-After", 429, map[string]string{
			"Retry-After": "65", "X-RateLimit-Limit": "10", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1470173023.123",
			"X-RateLimit-Reset-After": "64.57", "X-RateLimit-Bucket": "abcd1234", "X-RateLimit-Scope": "user"},
			`{"message": "You are being rate limited.", "retry_after": 64.57, "global": false}`, 64570 * time.Millisecond, true},
		{"Discord's global 429", 429, map[string]string{"Retry-After": "65", "X-RateLimit-Global": "true", "X-RateLimit-Scope": "global"},
			`{"message": "You are being rate limited.", "retry_after": 64.57, "global": true}`, 64570 * time.Millisecond, true},
		{"a 429 whose body is not Discord's: Retry-After", 429, map[string]string{"Retry-After": "3"}, `<html>slow down</html>`, 3 * time.Second, true},
		{"a 503 with an HTTP date", 503, map[string]string{"Retry-After": "Thu, 26 Nov 2026 07:00:30 GMT"}, ``, 30 * time.Second, true},
		{"an HTTP date gone by", 503, map[string]string{"Retry-After": "Thu, 26 Nov 2026 06:59:00 GMT"}, ``, 0, true},
		{"a 2xx that empties the bucket (Discord's header example)", 204, map[string]string{
			"X-RateLimit-Limit": "5", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1470173023",
			"X-RateLimit-Reset-After": "1", "X-RateLimit-Bucket": "abcd1234"}, ``, time.Second, true},
		{"a 2xx with requests left", 204, map[string]string{"X-RateLimit-Remaining": "4", "X-RateLimit-Reset-After": "1.5"}, ``, 0, false},
		{"a plain 2xx", 200, nil, `ok`, 0, false},
		{"a 429 that says nothing: the delivery's own backoff", 429, nil, `too many`, 0, false},
		{"a year is capped", 429, nil, `{"retry_after": 31536000}`, MaxWait, true},
		{"a negative figure is now", 429, nil, `{"retry_after": -5}`, 0, true},
		{"garbage in Retry-After", 500, map[string]string{"Retry-After": "soon"}, ``, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp := &http.Response{StatusCode: c.status, Header: http.Header{}}
			for k, v := range c.header {
				resp.Header.Set(k, v)
			}
			got, ok := Wait(resp, []byte(c.body), now)
			if got != c.want || ok != c.ok {
				t.Fatalf("Wait = %v, %v; want %v, %v", got, ok, c.want, c.ok)
			}
		})
	}
}
