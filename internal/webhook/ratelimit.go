package webhook

import (
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// MaxWait caps what a receiver may ask the delivery to wait: a receiver
// answering "retry in a year" (or a garbled header) does not stop its
// endpoint for longer than this; the next attempt asks again.
const MaxWait = time.Hour

// Wait reads a receiver's answer into how long to wait before the next
// request to it, and whether the answer said so:
//
//   - a 429 from Discord carries {"retry_after": seconds (a float),
//     "global": bool} in its body, the most precise figure, used first;
//   - any answer may carry Retry-After, in seconds or as an HTTP date
//     (RFC 9110; a date is read against now);
//   - Discord's X-RateLimit-Remaining: 0 with X-RateLimit-Reset-After
//     (seconds, a float) says the bucket is empty even after a 2xx: the
//     next request waits for the reset instead of earning a 429.
//
// A global limit (Discord's "global": true or X-RateLimit-Global) waits
// the same: each endpoint has its own delivery, so the wait is the
// endpoint's either way. The wait is never negative and at most MaxWait.
// A 429 without any of these reports false: the delivery backs off as
// after any failure.
func Wait(resp *http.Response, body []byte, now time.Time) (time.Duration, bool) {
	if resp.StatusCode == http.StatusTooManyRequests {
		var limited struct {
			RetryAfter *float64 `json:"retry_after"`
		}
		if json.Unmarshal(body, &limited) == nil && limited.RetryAfter != nil {
			if d, ok := seconds(*limited.RetryAfter); ok {
				return d, true
			}
		}
	}
	if d, ok := retryAfter(resp.Header.Get("Retry-After"), now); ok {
		return d, true
	}
	if strings.TrimSpace(resp.Header.Get("X-RateLimit-Remaining")) == "0" {
		if f, err := strconv.ParseFloat(strings.TrimSpace(resp.Header.Get("X-RateLimit-Reset-After")), 64); err == nil {
			return seconds(f)
		}
	}
	return 0, false
}

// retryAfter reads a Retry-After header: delay-seconds or an HTTP date.
// Discord sends whole seconds; some receivers send a fraction, taken too.
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		return seconds(f)
	}
	at, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	return clamp(at.Sub(now)), true
}

// seconds is a receiver's figure of seconds as a wait, rounded up to the
// millisecond (64.57 is 64.57 s, not a hair less that would earn another
// 429); false when it is not a number.
func seconds(f float64) (time.Duration, bool) {
	if math.IsNaN(f) || math.IsInf(f, -1) {
		return 0, false
	}
	if f > MaxWait.Seconds() {
		return MaxWait, true
	}
	return clamp(time.Duration(math.Ceil(f*1000-1e-6)) * time.Millisecond), true
}

func clamp(d time.Duration) time.Duration { return min(max(d, 0), MaxWait) }
