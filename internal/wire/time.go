package wire

import (
	"fmt"
	"time"
)

// Time is an instant as the wire carries it: RFC 3339 in UTC with exactly
// three decimals, "2026-11-25T16:40:04.760Z". The market keeps its times
// in milliseconds, and encoding/json's own form drops trailing zeros, so
// one answer said ".76Z" and the next ".7Z" or no decimals at all; a fixed
// width sorts as text and parses with one layout.
type Time struct{ time.Time }

// TimeLayout is Time's text form.
const TimeLayout = "2006-01-02T15:04:05.000Z"

// At is t on the wire: in UTC, cut to the millisecond.
func At(t time.Time) Time { return Time{t.UTC().Truncate(time.Millisecond)} }

// String is the wire form.
func (t Time) String() string { return t.UTC().Format(TimeLayout) }

// MarshalJSON writes the wire form, quoted.
func (t Time) MarshalJSON() ([]byte, error) {
	if y := t.UTC().Year(); y < 0 || y > 9999 {
		return nil, fmt.Errorf("wire.Time: year %d is outside 0..9999", y)
	}
	b := append(make([]byte, 0, len(TimeLayout)+2), '"')
	return append(t.UTC().AppendFormat(b, TimeLayout), '"'), nil
}

// UnmarshalJSON reads any RFC 3339 time, so that a client's own times are
// read as well as ours.
func (t *Time) UnmarshalJSON(b []byte) error {
	var tt time.Time
	if err := tt.UnmarshalJSON(b); err != nil {
		return err
	}
	*t = At(tt)
	return nil
}
