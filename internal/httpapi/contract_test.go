package httpapi

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
	"github.com/rynek/rynek/internal/wire"
	"github.com/rynek/rynek/seed"
)

// contract is the OpenAPI document a server serves, ready to validate
// answers against.
type contract struct {
	router routers.Router
}

func loadContract(t *testing.T, e *env) contract {
	t.Helper()
	a := e.get("/api/openapi.json")
	if a.status != 200 {
		t.Fatalf("openapi.json: %d", a.status)
	}
	doc, err := openapi3.NewLoader().LoadFromData(a.body)
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("the served document is not valid OpenAPI: %v", err)
	}
	if !doc.IsOpenAPI31OrLater() {
		t.Fatalf("openapi %s, want 3.1", doc.OpenAPI)
	}
	// Its one server is "/", which a client resolves against where it
	// read the document: here, the host every answer is routed on.
	if len(doc.Servers) != 1 || doc.Servers[0].URL != "/" {
		t.Fatalf("servers %+v, want the one relative to the document, /", doc.Servers)
	}
	doc.Servers[0].URL = "http://rynek.test/"
	router, err := legacy.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	return contract{router: router}
}

// check requests path from e and validates the answer: its status must be
// documented for the route and its headers and body must match the schema.
func (c contract) check(t *testing.T, e *env, wantStatus int, path string, headers ...string) answer {
	t.Helper()
	a := e.get(path, headers...)
	if a.status != wantStatus {
		t.Fatalf("%s: %d, want %d: %s", path, a.status, wantStatus, a.body)
	}
	// Routed on the host loadContract resolved the document's server
	// against: the paths are relative to wherever it is served.
	req, err := http.NewRequest("GET", "http://rynek.test"+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	route, params, err := c.router.FindRoute(req)
	if err != nil {
		t.Fatalf("%s: no documented route: %v", path, err)
	}
	opts := &openapi3filter.Options{IncludeResponseStatus: true, AuthenticationFunc: openapi3filter.NoopAuthenticationFunc,
		ExcludeResponseBody: strings.HasPrefix(a.header.Get("Content-Type"), "text/event-stream")}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: opts},
		Status:                 a.status, Header: a.header, Body: io.NopCloser(bytes.NewReader(a.body)), Options: opts,
	}
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		t.Errorf("%s (%d) does not match the document: %v", path, a.status, err)
	}
	return a
}

// TestResponsesMatchTheServedDocument validates an answer of every route,
// and every error status each documents, against /api/openapi.json.
func TestResponsesMatchTheServedDocument(t *testing.T) {
	e := newEnv(t, seed.Options{Listings: 300}, Options{})
	c := loadContract(t, e)
	var page wire.ListingPage
	e.getJSON("/api/listings?limit=3", &page)
	var hist wire.TransactionPage
	e.getJSON("/api/history?limit=3", &hist)
	players, _ := e.svc.Players()
	for _, path := range []string{
		"/api/listings", "/api/listings?limit=3&sort=price_desc&category=tools", "/api/listings?q=diament&limit=500",
		"/api/listings?limit=3&cursor=" + page.NextCursor, "/api/listings?material=OAK_LOG&min_price=1&max_price=100000",
		fmt.Sprintf("/api/listings/%d", page.Items[0].ID), "/api/categories", "/api/players/" + players[0].ID.String(),
		"/api/stats", "/api/history", "/api/history?limit=2&cursor=" + hist.NextCursor, "/api/transactions/" + hist.Items[0].ID,
		"/api/price-history/" + hist.Items[0].Item.Material, "/api/price-history/DIAMOND?span=24h", "/api/health", "/api/openapi.json",
		"/api/price-summary/DIAMOND", "/api/volume-history", "/api/volume-history?span=24h",
		"/api/history?limit=2&player=" + hist.Items[0].Buyer.UUID, MetricsPath,
	} {
		c.check(t, e, 200, path)
	}
	c.check(t, e, 200, fmt.Sprintf("/api/events?since=%d", e.svc.Version()+5)) // a reset, then the end
	tag := e.get("/api/stats").header.Get("ETag")
	for _, path := range []string{"/api/listings", "/api/stats", "/api/categories", "/api/history"} {
		c.check(t, e, 304, path, "If-None-Match: "+tag)
	}
	for _, path := range []string{"/api/listings?limit=0", "/api/listings?cursor=zz", "/api/listings/0", "/api/players/nope",
		"/api/history?cursor=AUgA", "/api/transactions/123", "/api/price-history/DIAMOND?span=2d", "/api/events?since=x",
		"/api/history?player=nope", "/api/volume-history?span=2d", MetricsPath + "?format=json"} {
		c.check(t, e, 400, path)
	}
	for _, path := range []string{"/api/listings/999999", "/api/players/01234567-89ab-4cde-8f01-23456789abcd",
		"/api/transactions/01234567-89ab-4cde-8f01-23456789abcd", "/api/price-history/NOT_AN_ITEM",
		"/api/history?player=01234567-89ab-4cde-8f01-23456789abcd"} {
		c.check(t, e, 404, path)
	}
	e.svc.Disable()
	for _, path := range []string{"/api/listings", "/api/listings/1", "/api/categories", "/api/stats", "/api/history",
		"/api/health", "/api/events", "/api/price-history/DIAMOND", "/api/players/" + players[0].ID.String(),
		"/api/transactions/" + hist.Items[0].ID} {
		c.check(t, e, 503, path)
	}

	guarded := newEnv(t, seed.Options{Listings: 10}, Options{Token: "t0ken", RatePerSecond: 0.001, Burst: 1})
	for _, path := range []string{"/api/listings", "/api/health", "/api/events", "/api/openapi.json", MetricsPath} {
		c.check(t, guarded, 401, path)
	}
	guarded.get("/api/stats", "Authorization: Bearer t0ken") // the one request of the burst
	c.check(t, guarded, 429, "/api/stats", "Authorization: Bearer t0ken")
}
