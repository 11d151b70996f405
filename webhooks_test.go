package main

import (
	"bufio"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
)

// hookReceiver is a Standard Webhooks receiver: it checks each delivery's
// signature and records its webhook-id (the event's seq) in the order it
// took them. hold, when set, is told of the n-th request and keeps it
// unanswered until it returns.
type hookReceiver struct {
	t    *testing.T
	key  []byte
	srv  *httptest.Server
	hold func(n int)

	mu       sync.Mutex
	requests int
	got      []uint64
}

const hookSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

func newHookReceiver(t *testing.T) *hookReceiver {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(hookSecret, "whsec_"))
	if err != nil {
		t.Fatal(err)
	}
	rc := &hookReceiver{t: t, key: key}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		id, ts := r.Header.Get("webhook-id"), r.Header.Get("webhook-timestamp")
		mac := hmac.New(sha256.New, rc.key)
		mac.Write([]byte(id + "." + ts + "."))
		mac.Write(body)
		if want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)); r.Header.Get("webhook-signature") != want {
			t.Errorf("delivery %s: signature %q, want %q", id, r.Header.Get("webhook-signature"), want)
		}
		var ev struct{ Seq uint64 }
		seq, err := strconv.ParseUint(id, 10, 64)
		if json.Unmarshal(body, &ev) != nil || err != nil || ev.Seq != seq {
			t.Errorf("delivery %q: body %.200s", id, body)
		}
		rc.mu.Lock()
		rc.requests++
		n, hold := rc.requests, rc.hold
		rc.mu.Unlock()
		if hold != nil {
			hold(n)
		}
		rc.mu.Lock()
		rc.got = append(rc.got, seq)
		rc.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

// discordDouble stands in for a Discord channel's webhook: it takes
// messages of up to ten embeds, reads each event's seq from its embed's
// footer ("Rynek · zdarzenie #<seq>"), and answers every fourth message
// with a 429 and a retry_after, as Discord's rate limit does (the message
// is then not taken).
type discordDouble struct {
	srv *httptest.Server

	mu        sync.Mutex
	messages  int
	limited   int
	got       []uint64
	footerSeq *regexp.Regexp
}

func newDiscordDouble(t *testing.T) *discordDouble {
	d := &discordDouble{footerSeq: regexp.MustCompile(`^Rynek · zdarzenie #(\d+)$`)}
	d.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var msg struct {
			Embeds []struct {
				Footer struct{ Text string }
			}
		}
		if err := json.NewDecoder(r.Body).Decode(&msg); err != nil || len(msg.Embeds) == 0 || len(msg.Embeds) > 10 {
			t.Errorf("a Discord message of %d embeds (%v)", len(msg.Embeds), err)
			http.Error(w, `{"message":"Cannot send an empty message","code":50006}`, http.StatusBadRequest)
			return
		}
		d.mu.Lock()
		defer d.mu.Unlock()
		d.messages++
		if d.messages%4 == 0 {
			d.limited++
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusTooManyRequests)
			io.WriteString(w, `{"message":"You are being rate limited.","retry_after":0.05,"global":false}`)
			return
		}
		for _, e := range msg.Embeds {
			m := d.footerSeq.FindStringSubmatch(e.Footer.Text)
			if m == nil {
				t.Errorf("an embed's footer %q names no event", e.Footer.Text)
				continue
			}
			seq, _ := strconv.ParseUint(m[1], 10, 64)
			d.got = append(d.got, seq)
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(d.srv.Close)
	return d
}

func (d *discordDouble) taken() []uint64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.got)
}

func (rc *hookReceiver) taken() []uint64 {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return slices.Clone(rc.got)
}

// startChild runs `rynek serve` with args in a child process and returns
// it once it serves.
func startChild(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	cmd := command(append([]string{"serve"}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb strings.Builder
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	sc := bufio.NewScanner(out)
	if !sc.Scan() || !regexp.MustCompile(`on http://127\.0\.0\.1:\d+/`).MatchString(sc.Text()) {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("serve did not start: %q; stderr %s", sc.Text(), errb.String())
	}
	go io.Copy(io.Discard, out)
	return cmd
}

// publishedSeqs reads the seqs of the market's contract events after
// after from its file, beside the process that has it open.
func publishedSeqs(t *testing.T, db string, after uint64) []uint64 {
	t.Helper()
	snap, err := sqlite.OpenSnapshot(db)
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	var out []uint64
	for {
		n, err := snap.ReadEvents(after, 1000, func(e market.EventRow) error {
			if e.Kind.Published() {
				out = append(out, e.Seq)
			}
			after = e.Seq
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if n < 1000 {
			return out
		}
	}
}

// TestWebhooksSurviveSIGKILL: `rynek serve` with bots delivers to a
// Standard Webhooks receiver and a Discord double and is killed (SIGKILL)
// while a delivery is in flight; started again with bots, it goes on from
// the positions stored in the market and is killed again at a random
// moment; a third run without bots delivers the rest. Each receiver has
// every event of the log, in seq order, with no gap (the receiver's each
// signed, the double's in messages of up to ten, a quarter of them
// refused with a 429 and sent again); a repeat is only of a seq it had
// (the one in flight when the process died, or one whose position was not
// stored yet).
func TestWebhooksSurviveSIGKILL(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "m.db")
	rc, dd := newHookReceiver(t), newDiscordDouble(t)
	rules := "webhooks:\n  - name: site\n    url: " + rc.srv.URL + "/rynek\n    format: standard\n    secret: " + hookSecret + "\n" +
		"  - name: discord\n    url: " + dd.srv.URL + "/api/webhooks/123/token\n    format: discord\n"
	if err := os.WriteFile(filepath.Join(dir, "rynek.yml"), []byte(rules), 0o644); err != nil {
		t.Fatal(err)
	}
	inFlight, release := make(chan struct{}), make(chan struct{})
	rc.hold = func(n int) {
		if n == 60 {
			close(inFlight)
			<-release
		}
	}
	child := startChild(t, "--db", db, "--seed", "100", "--seed-rand", "1", "--api", "127.0.0.1:0", "--bots", "200")
	select {
	case <-inFlight:
	case <-time.After(30 * time.Second):
		t.Fatalf("the receiver got %d deliveries in 30 s", len(rc.taken()))
	}
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	child.Wait()
	close(release) // the killed process never reads this answer
	before := len(rc.taken())

	// Again with bots, killed at a random moment of its deliveries.
	child = startChild(t, "--db", db, "--api", "127.0.0.1:0", "--bots", "200")
	for deadline := time.Now().Add(30 * time.Second); len(rc.taken()) < before+150; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the receiver got %d deliveries after the restart in 30 s", len(rc.taken())-before)
		}
	}
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	child.Wait()

	child = startChild(t, "--db", db, "--api", "127.0.0.1:0")
	var want, got, gotDiscord []uint64
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		want = publishedSeqs(t, db, 0)
		got, gotDiscord = uniqueInOrder(t, rc.taken()), uniqueInOrder(t, dd.taken())
		if slices.Equal(got, want) && slices.Equal(gotDiscord, want) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the restart the receiver has %d events of the log's %d (%d before the kill), the Discord double %d",
				len(got), len(want), before, len(gotDiscord))
		}
	}
	if err := child.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := child.Wait(); err != nil {
		t.Fatalf("serve after SIGTERM: %v", err)
	}
	dd.mu.Lock()
	messages, limited := dd.messages, dd.limited
	dd.mu.Unlock()
	t.Logf("%d events delivered, %d before the first kill, %d requests in all; to Discord %d messages, %d refused with a 429",
		len(want), before, len(rc.taken()), messages, limited)
}

// uniqueInOrder is the seqs taken with repeats left out; it fails when a
// seq comes after a larger one without having come before.
func uniqueInOrder(t *testing.T, seqs []uint64) []uint64 {
	t.Helper()
	seen := map[uint64]bool{}
	var out []uint64
	for _, s := range seqs {
		if seen[s] {
			continue
		}
		if len(out) > 0 && s < out[len(out)-1] {
			t.Fatalf("event %d came after %d and not before it", s, out[len(out)-1])
		}
		seen[s] = true
		out = append(out, s)
	}
	return out
}

// TestServeReloadsWebhooks: SIGHUP applies the rules file's webhooks to
// `rynek serve`: one added starts delivering, its trouble and recovery
// are said on stderr, its lag is in /metrics, and one removed stops.
func TestServeReloadsWebhooks(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "m.db")
	rulesFile := filepath.Join(dir, "rynek.yml")
	rc := newHookReceiver(t)
	var refused sync.Once
	failFirst := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		first := false
		refused.Do(func() { first = true })
		if first {
			http.Error(w, "boom", http.StatusInternalServerError)
			return
		}
		rc.srv.Config.Handler.ServeHTTP(w, r)
	})
	front := httptest.NewServer(failFirst)
	defer front.Close()
	srv := startServe(t, "--db", db, "--seed", "50", "--seed-rand", "1", "--api", "127.0.0.1:0", "--bots", "100")
	said := func(what string) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !strings.Contains(srv.errb.String(), what); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("stderr never said %q: %s", what, srv.errb.String())
			}
		}
	}
	hup := func(file string) {
		t.Helper()
		if err := os.WriteFile(rulesFile, []byte(file), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
	}
	hup("webhooks:\n  - name: site\n    url: " + front.URL + "/rynek\n    format: standard\n    secret: " + hookSecret + "\n")
	said("rules reloaded from " + rulesFile + " (1 webhook)")
	said("rynek serve: webhook site: HTTP 500 Internal Server Error: boom; trying again in ")
	said("rynek serve: webhook site: delivering again after 1 failed tries")
	for deadline := time.Now().Add(10 * time.Second); len(rc.taken()) < 20; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the receiver got %d events in 10 s", len(rc.taken()))
		}
	}
	// Prometheus sees the endpoint added by the reload.
	res, err := http.Get(srv.base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !regexp.MustCompile(`(?m)^rynek_webhook_lag_events\{webhook="site"\} \d+$`).Match(metrics) {
		t.Fatalf("/metrics has no lag of the webhook site:\n%s", metrics)
	}
	hup("fees:\n  sale-percent: 3\n")
	said("rules reloaded from " + rulesFile + "\n")
	time.Sleep(200 * time.Millisecond) // a delivery under way when it stopped
	n := len(rc.taken())
	time.Sleep(500 * time.Millisecond)
	if after := len(rc.taken()); after != n {
		t.Fatalf("a removed webhook got %d more events", after-n)
	}
	srv.stop()
}

// TestServeLinksDiscordMessagesToItsBoard: with --public-url, serve's
// Discord messages link each event to its page on the board; a URL that
// is not http(s) is refused as a usage error.
func TestServeLinksDiscordMessagesToItsBoard(t *testing.T) {
	var errb strings.Builder
	if code := run([]string{"serve", "--public-url", "rynek.example.pl", "--db", filepath.Join(t.TempDir(), "m.db")}, io.Discard, &errb); code != 2 ||
		errb.String() != "rynek: --public-url: the board's public address \"rynek.example.pl\" is not an absolute http(s) URL without a query\n" {
		t.Fatalf("exit %d: %q", code, errb.String())
	}
	dir := t.TempDir()
	var mu sync.Mutex
	var links []string
	discord := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var msg struct{ Embeds []struct{ URL string } }
		if r.URL.Path != "/api/webhooks/42/t0ken" || json.NewDecoder(r.Body).Decode(&msg) != nil {
			t.Errorf("a message to %s", r.URL.Path)
		}
		mu.Lock()
		for _, e := range msg.Embeds {
			links = append(links, e.URL)
		}
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	defer discord.Close()
	rules := "webhooks:\n  - name: discord\n    url: " + discord.URL + "/api/webhooks/42/t0ken\n    format: discord\n"
	if err := os.WriteFile(filepath.Join(dir, "rynek.yml"), []byte(rules), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := startServe(t, "--db", filepath.Join(dir, "m.db"), "--seed", "50", "--seed-rand", "1", "--api", "127.0.0.1:0",
		"--bots", "100", "--public-url", "https://rynek.example.pl/")
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		mu.Lock()
		n := len(links)
		mu.Unlock()
		if n >= 5 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d embeds in 10 s: %s", n, srv.errb.String())
		}
	}
	srv.stop()
	mu.Lock()
	defer mu.Unlock()
	for _, l := range links {
		if !strings.HasPrefix(l, "https://rynek.example.pl/") {
			t.Fatalf("an embed links to %q", l)
		}
	}
}
