package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// TestStreamCapFlags: --api-max-streams and --api-max-streams-per-client
// set the API's caps on event streams, in the console's and serve's help;
// a cap out of range, or a per-client cap without the rate limit that
// tells clients apart, is refused; serve then refuses one stream past
// each cap with 429 too-many-streams.
func TestStreamCapFlags(t *testing.T) {
	for _, cmd := range [][]string{{"--help"}, {"serve", "--help"}} {
		var out, errb bytes.Buffer
		run(cmd, &out, &errb)
		for _, want := range []string{
			"  -api-max-streams int\n    \tevent streams (/api/events) open at once; one more is refused with 429 too-many-streams (default 1000)\n",
			"  -api-max-streams-per-client int\n    \tevent streams one client IP may hold open at once (no such cap with --api-rate 0) (default 16)\n",
		} {
			if !strings.Contains(errb.String(), want) {
				t.Errorf("%v lacks %q:\n%s", cmd, want, errb.String())
			}
		}
	}
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--api-max-streams", "0"}, "rynek: --api-max-streams must be between 1 and 100000, got 0\n"},
		{[]string{"serve", "--api-max-streams", "100001"}, "rynek: --api-max-streams must be between 1 and 100000, got 100001\n"},
		{[]string{"--api-max-streams-per-client", "0"}, "rynek: --api-max-streams-per-client must be between 1 and --api-max-streams (1000), got 0\n"},
		{[]string{"serve", "--api-max-streams", "10", "--api-max-streams-per-client", "20"}, "rynek: --api-max-streams-per-client must be between 1 and --api-max-streams (10), got 20\n"},
		{[]string{"serve", "--api-rate", "0", "--api-max-streams-per-client", "4"},
			"rynek: --api-max-streams-per-client needs the rate limit: with --api-rate 0 clients are not told apart (behind a reverse proxy each has the proxy's address), so no client has a cap of its own\n"},
	} {
		var out, errb bytes.Buffer
		if code := run(c.args, &out, &errb); code != 2 || errb.String() != c.msg {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errb.String(), c.msg)
		}
	}

	dir := t.TempDir()
	for _, c := range []struct {
		args   []string
		detail string
	}{
		{[]string{"--api-max-streams", "3", "--api-max-streams-per-client", "2"},
			"this client has 2 event streams open, the most one client may; close one, or retry after the time in Retry-After"},
		{[]string{"--api-rate", "0", "--api-max-streams", "2"},
			"the server has 2 event streams open, the most it serves; retry after the time in Retry-After"},
	} {
		args := append([]string{"--db", filepath.Join(dir, "m.db"), "--seed", "20", "--api", "127.0.0.1:0"}, c.args...)
		srv := startServe(t, args...)
		for i := range 2 {
			res, err := http.Get(srv.base + "/api/events")
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			if res.StatusCode != 200 {
				t.Fatalf("%v: stream %d: %d", c.args, i+1, res.StatusCode)
			}
		}
		res, err := http.Get(srv.base + "/api/events")
		if err != nil {
			t.Fatal(err)
		}
		var p struct{ Code, Detail string }
		json.NewDecoder(res.Body).Decode(&p)
		res.Body.Close()
		if res.StatusCode != 429 || p.Code != "too-many-streams" || p.Detail != c.detail {
			t.Errorf("%v: a stream past the cap: %d %+v; want 429 too-many-streams %q", c.args, res.StatusCode, p, c.detail)
		}
		srv.stop()
	}
}
