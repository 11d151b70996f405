package httpapi

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/rynek/rynek/internal/traffic"
	"github.com/rynek/rynek/internal/webhook"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/seed"
)

// TestTheStreamIsAsTheDocumentSays: every message of a real stream (the
// retry advice, the events the traffic bots' changes published, a reset)
// is one of the document's EventStream messages, and its data is what that
// message's contentSchema names, so that a client generated from
// /api/openapi.json reads the stream it gets.
func TestTheStreamIsAsTheDocumentSays(t *testing.T) {
	e := newEnv(t, seed.Options{Listings: 300}, Options{})
	rec := record(e.svc)
	players, _ := e.svc.Players()
	traffic.New(5).Step(e.svc, players, 400, time.Second)
	published := len(rec.all())
	if published < 50 {
		t.Fatalf("only %d events published", published)
	}
	doc, err := openapi3.NewLoader().LoadFromData(openAPIDoc)
	if err != nil {
		t.Fatal(err)
	}
	ok := doc.Paths.Value("/api/events").Get.Responses.Value("200").Value.Content.Get("text/event-stream")
	if ok == nil || ok.Schema == nil || ok.Schema.Ref != "#/components/schemas/EventStream" {
		t.Fatalf("GET /api/events's 200 is not described as the EventStream: %+v", ok)
	}
	messages := ok.Schema.Value.Items.Value.OneOf
	seen := map[string]int{}
	check := func(msg map[string]any) {
		t.Helper()
		var matched []string
		for _, m := range messages {
			if m.Value.VisitJSON(msg, openapi3.EnableJSONSchema2020()) != nil {
				continue
			}
			matched = append(matched, m.Ref)
			if data, ok := m.Value.Properties["data"]; ok {
				var v any
				if err := json.Unmarshal([]byte(msg["data"].(string)), &v); err != nil {
					t.Fatalf("%v: data is not JSON: %v", msg, err)
				}
				if err := data.Value.ContentSchema.Value.VisitJSON(v, openapi3.EnableJSONSchema2020()); err != nil {
					t.Errorf("%v: data does not match %s: %v", msg, data.Value.ContentSchema.Ref, err)
				}
			}
		}
		if len(matched) != 1 {
			t.Fatalf("the message %v matches %v of the document's stream messages, want exactly one", msg, matched)
		}
		kind, _ := msg["event"].(string)
		if kind == "" {
			kind = "retry"
		}
		seen[kind]++
	}
	// The events from the first, then the stream waits for more.
	read(t, e, "/api/events?since=0", published, check)
	if n := published - seen["reset"]; seen["retry"] != 1 || len(seen) < 5 {
		t.Fatalf("messages by kind %v over %d events: want the retry advice and several kinds", seen, n)
	}
	// A position past the market's: the retry advice, a reset, the end.
	read(t, e, fmt.Sprintf("/api/events?since=%d", e.svc.Version()+100), -1, check)
	if seen["reset"] != 1 || seen["retry"] != 2 {
		t.Fatalf("messages by kind %v: want a reset after the second retry advice", seen)
	}
	t.Logf("messages by kind: %v", seen)
}

// read opens the stream at path and hands each message to check as the
// document's EventStream spells it (its fields; retry a number), until n
// events have come (n < 0: until the stream ends). Comments are skipped.
func read(t *testing.T, e *env, path string, n int, check func(map[string]any)) {
	t.Helper()
	res, err := e.srv.Client().Get(e.srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/event-stream" {
		body, _ := io.ReadAll(res.Body)
		t.Fatalf("GET %s: %d %s %s", path, res.StatusCode, res.Header.Get("Content-Type"), body)
	}
	r := bufio.NewReader(res.Body)
	msg := map[string]any{}
	events := 0
	for n < 0 || events < n {
		line, err := r.ReadString('\n')
		if err == io.EOF && n < 0 && line == "" {
			return
		}
		if err != nil {
			t.Fatalf("GET %s after %d events: %v", path, events, err)
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "":
			if len(msg) > 0 {
				check(msg)
				if _, ok := msg["id"]; ok {
					events++
				}
			}
			msg = map[string]any{}
		case strings.HasPrefix(line, ":"): // a comment: the heartbeat
		default:
			k, v, _ := strings.Cut(line, ": ")
			if _, dup := msg[k]; dup {
				t.Fatalf("GET %s: the field %s twice in one message", path, k)
			}
			msg[k] = v
			if k == "retry" {
				ms, err := strconv.Atoi(v)
				if err != nil {
					t.Fatalf("GET %s: retry: %q", path, v)
				}
				msg[k] = ms
			}
		}
	}
}

// TestWebhookDeliveriesAreAsTheDocumentSays: a format: standard endpoint's
// deliveries of the events the traffic bots' changes published are the
// document's webhooks.marketEvent: the body its Event, each of the three
// headers as its parameter describes it, and no other header of the
// signature's.
func TestWebhookDeliveriesAreAsTheDocumentSays(t *testing.T) {
	e := newEnv(t, seed.Options{Listings: 300}, Options{})
	rec := record(e.svc)
	players, _ := e.svc.Players()
	traffic.New(7).Step(e.svc, players, 200, time.Second)
	events := rec.all()
	if len(events) < 50 {
		t.Fatalf("only %d events published", len(events))
	}
	doc, err := openapi3.NewLoader().LoadFromData(openAPIDoc)
	if err != nil {
		t.Fatal(err)
	}
	hook := doc.Webhooks["marketEvent"]
	if hook == nil || hook.Post == nil {
		t.Fatal("the document has no webhooks.marketEvent.post")
	}
	body := hook.Post.RequestBody.Value.Content.Get("application/json")
	if body == nil || body.Schema.Ref != "#/components/schemas/Event" {
		t.Fatalf("marketEvent's body is not the Event: %+v", body)
	}
	headers := map[string]*openapi3.Schema{}
	for _, p := range hook.Post.Parameters {
		if p.Value.In != "header" || !p.Value.Required {
			t.Fatalf("marketEvent's parameter %s is in %s, required %v: want a required header", p.Value.Name, p.Value.In, p.Value.Required)
		}
		headers[p.Value.Name] = p.Value.Schema.Value
	}
	if len(headers) != 3 || headers[webhook.HeaderID] == nil || headers[webhook.HeaderTimestamp] == nil || headers[webhook.HeaderSignature] == nil {
		t.Fatalf("marketEvent's headers %v, want webhook-id, webhook-timestamp and webhook-signature", slices.Sorted(maps.Keys(headers)))
	}
	enc, err := webhook.NewStandard("whsec_" + base64.StdEncoding.EncodeToString([]byte("a key of thirty-two bytes, made.")))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	for _, ev := range events {
		d, n, err := enc.Encode([]market.Event{ev}, now)
		if err != nil || n != 1 {
			t.Fatalf("encode event %d: %d, %v", ev.Seq(), n, err)
		}
		var v any
		if err := json.Unmarshal(d.Body, &v); err != nil {
			t.Fatal(err)
		}
		if err := body.Schema.Value.VisitJSON(v, openapi3.EnableJSONSchema2020()); err != nil {
			t.Fatalf("the delivery of %s %d does not match the document's Event: %v", ev.EventName(), ev.Seq(), err)
		}
		for name, schema := range headers {
			if err := schema.VisitJSON(d.Header.Get(name), openapi3.EnableJSONSchema2020()); err != nil {
				t.Fatalf("the delivery of event %d: %s %q is not as the document says: %v", ev.Seq(), name, d.Header.Get(name), err)
			}
		}
	}
}
