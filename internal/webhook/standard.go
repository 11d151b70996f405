package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/rynek/rynek/internal/wire"
	"github.com/rynek/rynek/market"
)

// Standard Webhooks 1.0 (https://www.standardwebhooks.com): a delivery is
// one event's JSON, and three headers let the receiver check that it comes
// from the market and has not been replayed: webhook-id (the event's seq,
// the same on every retry, so that a receiver deduplicates by it; a test
// event's, seq 0, is "test-" and the attempt's Unix milliseconds),
// webhook-timestamp (when the attempt was signed) and webhook-signature.

// The headers of a Standard Webhooks delivery.
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

// secretPrefix starts a Standard Webhooks secret; the base64 of the key
// follows it.
const secretPrefix = "whsec_"

// ParseSecret decodes a secret ("whsec_" and the base64 of the key) into
// the key it carries. The error never repeats the secret. The
// specification asks for keys of 24 to 64 bytes; a shorter one still
// signs (the rules file takes any, and so does the receiver's library),
// and docs/http-api.md says how to make a good one.
func ParseSecret(secret string) ([]byte, error) {
	rest, ok := strings.CutPrefix(secret, secretPrefix)
	if !ok {
		return nil, errors.New(`a webhook secret starts with "whsec_" (whsec_ and the base64 of the key)`)
	}
	key, err := base64.StdEncoding.DecodeString(rest)
	if err != nil {
		return nil, errors.New("a webhook secret is whsec_ and the base64 of the key: what follows whsec_ is not base64")
	}
	if len(key) == 0 {
		return nil, errors.New("a webhook secret's key is empty: whsec_ and the base64 of the key (openssl rand -base64 32)")
	}
	return key, nil
}

// Sign is the webhook-signature of a delivery: "v1," and the base64 of the
// HMAC-SHA256, keyed by key, of "id.timestamp.body" (the timestamp in Unix
// seconds).
func Sign(key []byte, id string, at time.Time, body []byte) string {
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "%s.%d.", id, at.Unix())
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// StandardEncoder writes deliveries in Standard Webhooks 1.0: one event a
// delivery, its body the event's JSON exactly as the event stream's data:
// line carries it.
type StandardEncoder struct {
	key []byte
}

// NewStandard is the encoder of a format: standard endpoint; a secret
// that is not whsec_ and the base64 of a key is an error here, when the
// endpoint is built, rather than a delivery nobody can verify.
func NewStandard(secret string) (*StandardEncoder, error) {
	key, err := ParseSecret(secret)
	if err != nil {
		return nil, err
	}
	return &StandardEncoder{key: key}, nil
}

// Encode writes the oldest event, signed at now.
func (s *StandardEncoder) Encode(events []market.Event, now time.Time) (Delivery, int, error) {
	if len(events) == 0 {
		return Delivery{}, 0, errors.New("standard webhook: no event to encode")
	}
	e := events[0]
	body, err := EventJSON(e)
	if err != nil {
		return Delivery{}, 0, err
	}
	id := strconv.FormatUint(e.Seq(), 10)
	if e.Seq() == 0 {
		// A test event (the console's t): no event of the log has seq 0.
		// Its own id each time, so that a receiver deduplicating by
		// webhook-id takes every test as new and none for a market event.
		id = "test-" + strconv.FormatInt(now.UnixMilli(), 10)
	}
	h := http.Header{}
	h.Set(HeaderID, id)
	h.Set(HeaderTimestamp, strconv.FormatInt(now.Unix(), 10))
	h.Set(HeaderSignature, Sign(s.key, id, now, body))
	return Delivery{Body: body, Header: h, Through: e.Seq()}, 1, nil
}

// EventJSON is an event as the event stream's data: line carries it (its
// wire form, seq included), so that a receiver reads one shape from both.
func EventJSON(e market.Event) ([]byte, error) {
	body, err := json.Marshal(wire.NewEvent(e))
	if err != nil {
		return nil, fmt.Errorf("event %d: %w", e.Seq(), err)
	}
	return body, nil
}

// DefaultTolerance is how far a delivery's timestamp may be from the
// receiver's clock, as the specification's reference libraries allow.
const DefaultTolerance = 5 * time.Minute

// Errors of Verify.
var (
	ErrMissingHeader = errors.New("a webhook-id, webhook-timestamp or webhook-signature header is missing")
	ErrTimestamp     = errors.New("the webhook-timestamp is outside the tolerance (a replay, or a clock that is off)")
	ErrSignature     = errors.New("no webhook-signature matches the body")
)

// Verify is a receiver's check of a Standard Webhooks delivery: the
// headers are there, the timestamp is within tolerance of now (either
// side), and one of the space-separated signatures is the body's v1
// signature under the secret. A receiver of Rynek's webhooks calls it with
// the body exactly as read (before any JSON decoding), then deduplicates by
// webhook-id.
func Verify(secret string, header http.Header, body []byte, now time.Time, tolerance time.Duration) error {
	key, err := ParseSecret(secret)
	if err != nil {
		return err
	}
	id, stamp, sigs := header.Get(HeaderID), header.Get(HeaderTimestamp), header.Get(HeaderSignature)
	if id == "" || stamp == "" || sigs == "" {
		return ErrMissingHeader
	}
	sec, err := strconv.ParseInt(stamp, 10, 64)
	if err != nil {
		return fmt.Errorf("%w: %q is not Unix seconds", ErrTimestamp, stamp)
	}
	at := time.Unix(sec, 0)
	if d := now.Sub(at); d > tolerance || d < -tolerance {
		return ErrTimestamp
	}
	want := []byte(Sign(key, id, at, body))
	for sig := range strings.FieldsSeq(sigs) {
		if hmac.Equal([]byte(sig), want) {
			return nil
		}
	}
	return ErrSignature
}
