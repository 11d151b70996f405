package httpapi

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/seed"
)

// TestBoardInARealBrowser loads the board page in headless Chromium from a
// test server, makes a sale through the service, and waits for it to
// appear in the page's live feed (and its listing to leave the table). The
// screenshot is written to $RYNEK_BOARD_SCREENSHOT when set.
//
// Without Chromium (Debian's package chromium) the test skips and says so;
// CI installs it and sets RYNEK_REQUIRE_CHROMIUM, which turns the skip into
// a failure.
func TestBoardInARealBrowser(t *testing.T) {
	bin, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("RYNEK_REQUIRE_CHROMIUM") != "" {
			t.Fatal("chromium is not installed and RYNEK_REQUIRE_CHROMIUM is set")
		}
		t.Skip("SKIPPED: chromium is not installed (apt-get install chromium); the board page was not tested in a browser")
	}
	e := newEnv(t, seed.Options{Listings: 60}, Options{})
	b := startBrowser(t, bin)
	b.navigate(e.srv.URL + "/")
	b.waitFor(`document.getElementById("status").className`, "live")
	b.waitFor(`String(document.querySelectorAll("#listings tr").length)`, "20")

	// A sale of the newest listing, made on the market's main thread.
	page, err := e.svc.Query(market.Query{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	l := page.Listings[0]
	players, _ := e.svc.Players()
	var tx market.Transaction
	for _, p := range players {
		if p.ID == l.Seller {
			continue
		}
		if tx, err = e.svc.Buy(p, l.ID); err == nil {
			break
		}
	}
	if tx.State != market.StateCompleted {
		t.Fatalf("no player could buy listing %d: %v", l.ID, err)
	}
	want := fmt.Sprintf("%s kupuje", tx.BuyerName)
	b.waitFor(`document.getElementById("feed").textContent.includes(`+jsString(want)+`) ? "yes" : document.getElementById("feed").textContent`, "yes")
	b.waitFor(fmt.Sprintf(`document.querySelector('#listings tr[data-id="%d"]') ? "still there" : "gone"`, l.ID), "gone")
	if path := os.Getenv("RYNEK_BOARD_SCREENSHOT"); path != "" {
		png := b.screenshot()
		if err := os.WriteFile(path, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot of the board after the sale: %s", path)
	}
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// browser is headless Chromium driven over the DevTools protocol on a pipe
// (--remote-debugging-pipe: JSON messages separated by NUL on fds 3 and 4),
// which needs nothing beyond the standard library.
type browser struct {
	t       *testing.T
	cmd     *exec.Cmd
	w       *os.File
	mu      sync.Mutex
	next    int
	waiting map[int]chan cdpReply
	session string
}

type cdpReply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
}

func startBrowser(t *testing.T, bin string) *browser {
	t.Helper()
	toChrome, cmdW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	fromChrome, chromeW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--no-first-run", "--remote-debugging-pipe", "--window-size=412,1200", "--user-data-dir="+filepath.Join(t.TempDir(), "profile"),
		"about:blank")
	cmd.ExtraFiles = []*os.File{toChrome, chromeW} // fd 3: chrome reads, fd 4: chrome writes
	// Its own process group, so that cleanup can stop the zygote and
	// renderer children too: they outlive a killed parent and keep writing
	// the profile while t.TempDir tries to remove it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	toChrome.Close()
	chromeW.Close()
	b := &browser{t: t, cmd: cmd, w: cmdW, waiting: map[int]chan cdpReply{}}
	t.Cleanup(func() { stopBrowser(t, cmd, cmdW) })
	go func() {
		r := bufio.NewReader(fromChrome)
		for {
			msg, err := r.ReadBytes(0)
			if err != nil {
				return
			}
			var m struct {
				ID int `json:"id"`
				cdpReply
			}
			if json.Unmarshal(msg[:len(msg)-1], &m) != nil || m.ID == 0 {
				continue // an event
			}
			b.mu.Lock()
			ch := b.waiting[m.ID]
			delete(b.waiting, m.ID)
			b.mu.Unlock()
			if ch != nil {
				ch <- m.cdpReply
			}
		}
	}()
	var targets struct {
		TargetInfos []struct {
			TargetID string `json:"targetId"`
			Type     string `json:"type"`
		} `json:"targetInfos"`
	}
	b.call("", "Target.getTargets", nil, &targets)
	for _, ti := range targets.TargetInfos {
		if ti.Type == "page" {
			var att struct {
				SessionID string `json:"sessionId"`
			}
			b.call("", "Target.attachToTarget", map[string]any{"targetId": ti.TargetID, "flatten": true}, &att)
			b.session = att.SessionID
			return b
		}
	}
	t.Fatal("chromium has no page")
	return nil
}

// stopBrowser closes the DevTools pipe, which asks Chromium to quit, gives
// it a few seconds, then kills its whole process group and waits until no
// member is left, so that the profile directory can be removed.
func stopBrowser(t *testing.T, cmd *exec.Cmd, pipe *os.File) {
	pipe.Close()
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
	}
	group := -cmd.Process.Pid
	syscall.Kill(group, syscall.SIGKILL)
	<-exited
	for deadline := time.Now().Add(10 * time.Second); syscall.Kill(group, 0) == nil; {
		if time.Now().After(deadline) {
			// Left only zombies nobody reaps (a container without an init);
			// they write nothing, so the profile can go.
			t.Logf("chromium's process group %d still listed 10 s after SIGKILL", -group)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// call sends a DevTools command and decodes its result into out.
func (b *browser) call(session, method string, params any, out any) {
	b.t.Helper()
	b.mu.Lock()
	b.next++
	id := b.next
	ch := make(chan cdpReply, 1)
	b.waiting[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	data, _ := json.Marshal(msg)
	if _, err := b.w.Write(append(data, 0)); err != nil {
		b.t.Fatalf("%s: %v", method, err)
	}
	select {
	case r := <-ch:
		if r.Error != nil {
			b.t.Fatalf("%s: %s", method, r.Error.Message)
		}
		if out != nil {
			if err := json.Unmarshal(r.Result, out); err != nil {
				b.t.Fatalf("%s: %v", method, err)
			}
		}
	case <-time.After(30 * time.Second):
		b.t.Fatalf("%s: no answer from chromium in 30 s", method)
	}
}

func (b *browser) navigate(url string) {
	b.t.Helper()
	b.call(b.session, "Page.navigate", map[string]any{"url": url}, nil)
}

// eval returns a JavaScript expression's value as a string.
func (b *browser) eval(expr string) string {
	b.t.Helper()
	var r struct {
		Result struct {
			Value any `json:"value"`
		} `json:"result"`
	}
	b.call(b.session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &r)
	return fmt.Sprint(r.Result.Value)
}

// waitFor evaluates expr until it gives want, for up to 20 s.
func (b *browser) waitFor(expr, want string) {
	b.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	got := ""
	for time.Now().Before(deadline) {
		if got = b.eval(expr); got == want {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	b.t.Fatalf("%s is %q, want %q", strings.TrimSpace(expr), got, want)
}

func (b *browser) screenshot() []byte {
	b.t.Helper()
	var r struct {
		Data string `json:"data"`
	}
	b.call(b.session, "Page.captureScreenshot", map[string]any{"format": "png"}, &r)
	png, err := base64.StdEncoding.DecodeString(r.Data)
	if err != nil {
		b.t.Fatal(err)
	}
	return png
}
