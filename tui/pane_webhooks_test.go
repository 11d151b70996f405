package tui

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rynek/rynek/internal/webhook"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/seed"
)

// fakeWebhooks is a webhook.Control the tests set: it records what the
// console asked and answers from its statuses.
type fakeWebhooks struct {
	mu    sync.Mutex
	state []webhook.Status
	calls []string
	err   error // what the next call answers
}

func (f *fakeWebhooks) Status() []webhook.Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]webhook.Status(nil), f.state...)
}

func (f *fakeWebhooks) do(what, name string, set func(*webhook.Status)) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, what+" "+name)
	if err := f.err; err != nil {
		f.err = nil
		return err
	}
	for i := range f.state {
		if f.state[i].Name == name {
			set(&f.state[i])
			return nil
		}
	}
	return fmt.Errorf("no webhook named %q", name)
}

func (f *fakeWebhooks) Pause(name string) error {
	return f.do("pause", name, func(s *webhook.Status) { s.Paused = true })
}

func (f *fakeWebhooks) Resume(name string) error {
	return f.do("resume", name, func(s *webhook.Status) { s.Paused, s.Failing = false, false })
}

func (f *fakeWebhooks) SendTest(name string) error {
	return f.do("test", name, func(s *webhook.Status) { s.Test = "taken (HTTP 204)" })
}

func (f *fakeWebhooks) called() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.calls, ", ")
}

// twoWebhooks is a site that delivers and a Discord channel that fails.
func twoWebhooks() *fakeWebhooks {
	return &fakeWebhooks{state: []webhook.Status{
		{Name: "site", URL: "https://example.com/rynek", Format: webhook.Standard, Delivered: 120, Head: 120},
		{Name: "discord", URL: webhook.Redact("https://discord.com/api/webhooks/1187/s3cr3t-t0ken"), Format: webhook.Discord,
			Delivered: 97, Head: 120, Lag: 23, LastError: "HTTP 404 Not Found: \x1b[31mUnknown Webhook\x1b[0m",
			NextRetry: fixedNow.Add(42 * time.Second), Failing: true, Skipped: 3},
	}}
}

func envWithWebhooks(t *testing.T, w, h int, ctl webhook.Control) *testEnv {
	t.Helper()
	return envOptions(t, seededStore(t, seed.Options{Players: 4, Listings: 5, Days: 1, Rand: 3, Auctions: -1, Orders: -1}), market.Config{ListingCooldown: -1}, w, h, func(o *Options) { o.Webhooks = ctl })
}

// TestWebhooksPaneWithoutWebhooksSaysHowToAddOne: a console without
// webhooks shows the pane's empty state, which names the file and the
// docs.
func TestWebhooksPaneWithoutWebhooksSaysHowToAddOne(t *testing.T) {
	e := newEnv(t, 80, 24)
	e.key("8")
	e.mustContain("No webhooks configured")
	e.mustContain("To add them under webhooks: in rynek.yml (docs/rules.md):")
	e.mustContain("8 Webhooks")
	checkScreen(t, e.m.View().Content, 80, 24)
	// The footer offers no key that has nothing to act on.
	lines := strings.Split(e.view(), "\n")
	if footer := strings.TrimRight(lines[len(lines)-1], " "); footer != "? all keys · q quit" {
		t.Fatalf("footer %q", footer)
	}
	e.key("?") // nor does the help
	e.mustContain("Panes and everywhere")
	for range 30 {
		e.key("pgdown")
	}
	if strings.Contains(e.view(), "This pane: Webhooks") || strings.Contains(e.view(), "send a test event") {
		t.Fatalf("the help offers the webhooks' keys:\n%s", e.view())
	}
	e.mustContain("Mouse: click a tab or a row")
	e.key("esc")
	e.key("space")
	if got := e.status(); got != "no webhook to act on: add them under webhooks: in rynek.yml (docs/rules.md)" {
		t.Fatalf("space without webhooks: %q", got)
	}
}

// TestWebhooksPaneShowsEachEndpoint: every endpoint's name, format,
// state, delivered seq, lag, next try and redacted URL; the selected
// one's last error (its escape sequences gone) and what was skipped.
func TestWebhooksPaneShowsEachEndpoint(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		e := envWithWebhooks(t, size[0], size[1], twoWebhooks())
		e.key("8")
		checkScreen(t, e.m.View().Content, size[0], size[1])
		e.mustContain("2 webhooks")
		e.mustContain("8 Webhooks")
		e.mustContain("site")
		e.mustContain("✓ ok")
		e.key("down")
		e.mustContain("✗ failing")
		e.mustContain("https://discord.com/api/webhooks/1187/…")
		e.mustContain("through event 97 of 120  · 23 to send")
		e.mustContain("✗ HTTP 404 Not Found: Unknown Webhook")
		e.mustContain("⚠ 3 events: the log's retention deleted them before delivery")
		e.mustContain("last test    none sent (t sends one)")
		e.mustContain("space resumes: delivery tries again from event 98 · t sends a test event")
		e.mustContain("space pause / resume · t send a test event · ↑/k up")
		if v := e.view(); strings.Contains(v, "s3cr3t") || strings.Contains(v, "\x1b[31m") {
			t.Fatalf("the screen shows a token or a player's escape:\n%s", v)
		}
	}
}

// TestWebhooksPaneKeys: space pauses the selected endpoint and resumes
// it (a failing one too), t sends it a test event; each outcome is in the
// footer, a refusal as an error; help lists both keys.
func TestWebhooksPaneKeys(t *testing.T) {
	f := twoWebhooks()
	e := envWithWebhooks(t, 80, 24, f)
	e.key("8")
	e.key("space")
	if got := e.status(); got != "webhook site paused: its events wait in the log until space resumes it" || !e.m.status.qa {
		t.Fatalf("after space: %q", got)
	}
	e.mustContain("‖ paused")
	e.key("space")
	if got := e.status(); got != "webhook site resumed: delivery goes on from event 121" {
		t.Fatalf("after space again: %q", got)
	}
	e.key("j")
	e.key("space") // failing: resume
	e.mustContain("webhook discord resumed: delivery goes on from event 98")
	e.key("t")
	if got := e.status(); got != "webhook discord test event queued: its outcome shows as the last test" {
		t.Fatalf("after t: %q", got)
	}
	e.mustContain("last test    taken (HTTP 204)")
	f.mu.Lock()
	f.err = fmt.Errorf("webhook %q is paused: resume it to send a test event", "discord")
	f.mu.Unlock()
	e.key("t")
	if got := e.status(); got != `webhook discord: webhook "discord" is paused: resume it to send a test event` || !e.m.status.err {
		t.Fatalf("a refused test: %q (error %v)", got, e.m.status.err)
	}
	if got, want := f.called(), "pause site, resume site, resume discord, test discord, test discord"; got != want {
		t.Fatalf("the console asked %q, want %q", got, want)
	}
	e.key("?")
	e.key("/")
	e.typeText("pause")
	e.mustContain(" space        pause / resume ")
	for range "pause" {
		e.key("backspace")
	}
	e.typeText("test event")
	e.mustContain(" t            send a test event ")
}

// TestWebhooksPaneFollowsTheDelivery: the pane re-reads the endpoints on
// its own tick, shown or not, and its tab counts the failing ones.
func TestWebhooksPaneFollowsTheDelivery(t *testing.T) {
	f := twoWebhooks()
	e := envWithWebhooks(t, 160, 48, f)
	e.send(paneMsg{pane: 7, msg: webhooksTickMsg{}})
	e.mustContain("8 Webhooks (1 failing)")
	f.mu.Lock()
	f.state[1].Failing, f.state[1].LastError, f.state[1].Delivered, f.state[1].Lag = false, "", 120, 0
	f.mu.Unlock()
	e.send(paneMsg{pane: 7, msg: webhooksTickMsg{}})
	e.key("8")
	e.mustContain("8 Webhooks  ")
	e.key("down")
	e.mustContain("through event 120 of 120  · 0 to send")
}

// TestEightTabsFitEightyColumns: at 80 columns every tab is whole and a
// click on each opens its pane.
func TestEightTabsFitEightyColumns(t *testing.T) {
	e := newEnv(t, 80, 24)
	line := strings.Split(e.view(), "\n")[1]
	for i, p := range e.m.panes {
		label := fmt.Sprintf("%d %s", i+1, p.Title())
		at := strings.Index(line, label)
		if at < 0 {
			t.Fatalf("the tab bar %q lacks %q", line, label)
		}
		x := width(line[:at])
		if got := e.m.tabAt(x); got != i {
			t.Fatalf("a click on %q (column %d) is tab %d", label, x, got)
		}
	}
}
