package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/rynek/rynek/internal/wire"
	"github.com/rynek/rynek/market"
)

// Problem is an RFC 9457 problem detail, the body of every error answer.
// Code is stable: clients match it, never the English detail. Parameter
// names the query or path parameter a 400 is about.
type Problem struct {
	Type      string `json:"type"`
	Title     string `json:"title"`
	Status    int    `json:"status"`
	Detail    string `json:"detail"`
	Instance  string `json:"instance,omitempty"`
	Code      string `json:"code"`
	Parameter string `json:"parameter,omitempty"`
	// Gone, on listing-not-found, says how the listing left the market;
	// absent for an id the market never gave.
	Gone *wire.ListingGone `json:"gone,omitempty"`
}

// The problem codes.
const (
	CodeBadParameter       = "bad-parameter"
	CodeBadCursor          = "bad-cursor"
	CodeBadPath            = "bad-path"
	CodeNotFound           = "not-found"
	CodeListingNotFound    = "listing-not-found"
	CodeNotAnAuction       = "not-an-auction"
	CodePlayerNotFound     = "player-not-found"
	CodeTransactionMissing = "transaction-not-found"
	CodeItemNotFound       = "item-not-found"
	CodeOrderNotFound      = "order-not-found"
	CodeMethodNotAllowed   = "method-not-allowed"
	CodeUnauthorized       = "unauthorized"
	CodeRateLimited        = "rate-limited"
	CodeTooManyStreams     = "too-many-streams"
	CodeNotReady           = "not-ready"
	CodeURITooLong         = "uri-too-long"
	CodeHeadersTooLarge    = "headers-too-large"
	CodeBadRequest         = "bad-request" // not valid HTTP: answered before any route (see listener.go)
	CodeInternal           = "internal"
)

// problemError is a problem a handler returns; writeError renders it.
type problemError struct {
	status    int
	code      string
	detail    string
	parameter string
	gone      *wire.ListingGone
}

func (e *problemError) Error() string { return e.detail }

func badParameter(name, detail string) error {
	return &problemError{status: http.StatusBadRequest, code: CodeBadParameter, detail: detail, parameter: name}
}

func notFound(code, detail string) error {
	return &problemError{status: http.StatusNotFound, code: code, detail: detail}
}

// retryAfterNotReady is the Retry-After of a not-ready answer, in seconds.
const retryAfterNotReady = 5

// writeError answers with err as a problem. A not-ready service is 503 with
// the contract's exact text; an invalid query the service refused is 400;
// anything unforeseen is 500 with a generic detail (the cause stays on the
// server).
func writeError(w http.ResponseWriter, r *http.Request, err error) {
	var pe *problemError
	var me *market.Error
	switch {
	case errors.As(err, &pe):
	case errors.Is(err, market.ErrNotReady):
		w.Header().Set("Retry-After", strconv.Itoa(retryAfterNotReady))
		pe = &problemError{status: http.StatusServiceUnavailable, code: CodeNotReady, detail: err.Error()}
	case errors.As(err, &me) && me.Code == market.CodeInvalidQuery:
		pe = &problemError{status: http.StatusBadRequest, code: CodeBadParameter, detail: me.Msg}
	default:
		pe = &problemError{status: http.StatusInternalServerError, code: CodeInternal, detail: "the market could not answer"}
	}
	writeProblem(w, r, pe)
}

func writeProblem(w http.ResponseWriter, r *http.Request, pe *problemError) {
	p := Problem{Type: "about:blank", Title: http.StatusText(pe.status), Status: pe.status, Detail: pe.detail,
		Code: pe.code, Parameter: pe.parameter, Gone: pe.gone}
	if r != nil {
		p.Instance = r.URL.EscapedPath() // never the query: it may hold the access token
	}
	body, _ := json.Marshal(p)
	h := w.Header()
	h.Set("Content-Type", "application/problem+json")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Del("ETag")
	w.WriteHeader(pe.status)
	if r == nil || r.Method != http.MethodHead {
		w.Write(append(body, '\n'))
	}
}
