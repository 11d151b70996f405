package webhook

import (
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	for raw, want := range map[string]string{
		"https://discord.com/api/webhooks/1187654321098765432/AbCdEf-ghIJ_kl0123456789": "https://discord.com/api/webhooks/1187654321098765432/…",
		"https://discord.com/api/v10/webhooks/1187/tok3n?wait=true":                     "https://discord.com/api/v10/webhooks/1187/…",
		"https://ptb.discordapp.com/api/webhooks/1187/tok3n/github":                     "https://ptb.discordapp.com/api/webhooks/1187/…/github",
		"https://user:hunter2@example.com:8443/rynek?token=abc#frag":                    "https://example.com:8443/rynek",
		"http://127.0.0.1:18400/hook":                                                   "http://127.0.0.1:18400/hook",
		"https://example.com/webhooks/shop/42":                                          "https://example.com/webhooks/shop/…",
		"https://example.com":                                                           "https://example.com",
		"not a url":                                                                     "…",
		"mailto:someone@example.com":                                                    "…",
		"https://discord.com/api/webhooks/1187":                                         "https://discord.com/api/webhooks/1187",
		"::":                                                                            "…",
	} {
		if got := Redact(raw); got != want {
			t.Errorf("Redact(%q) = %q, want %q", raw, got, want)
		}
	}
}

// FuzzRedactHidesTheToken: the token of a Discord webhook URL, a password
// and a query never survive Redact, whatever surrounds them.
func FuzzRedactHidesTheToken(f *testing.F) {
	f.Add("discord.com", "v10/", "1187654321098765432", "AbCdEf-ghIJ_kl0123456789", "pass", "token=s3cr3tvalue")
	f.Add("example.com:8080", "", "1", "tokentokentoken", "", "")
	f.Fuzz(func(t *testing.T, host, version, id, token, password, query string) {
		if len(token) < 8 || strings.Trim(token, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != "" {
			return // Discord's tokens are long base64url words
		}
		if strings.ContainsAny(password, "/?#@[]") || strings.ContainsAny(query, "#") {
			return // the URL would split elsewhere: not a password or a query then
		}
		if !plainWord(host, "abcdefghijklmnopqrstuvwxyz0123456789.-:") || !plainWord(id, "0123456789") ||
			(version != "" && (!strings.HasPrefix(version, "v") || !strings.HasSuffix(version, "/") || !plainWord(version[1:len(version)-1], "0123456789"))) {
			return // not a Discord webhook URL's shape
		}
		if strings.Contains(id, token) || strings.Contains(host, token) || strings.Contains(version, token) {
			return // what stays holds the token's letters: the check below could not tell them apart
		}
		raw := "https://u:" + password + "@" + host + "/api/" + version + "webhooks/" + id + "/" + token + "?" + query
		got := strings.TrimPrefix(Redact(raw), "https://"+host) // the host may hold anything
		if strings.Contains(got, token) {
			t.Fatalf("Redact(%q) = %q keeps the token", raw, got)
		}
		if len(password) >= 8 && strings.Contains(got, password) {
			t.Fatalf("Redact(%q) = %q keeps the password", raw, got)
		}
		if len(query) >= 8 && strings.Contains(got, query) {
			t.Fatalf("Redact(%q) = %q keeps the query", raw, got)
		}
	})
}

// plainWord reports whether s is a non-empty word of the letters in set.
func plainWord(s, set string) bool { return s != "" && strings.Trim(s, set) == "" }
