package webhook

import "fmt"

// NewEncoder is the encoder of an endpoint's format: its secret checked
// for standard, the board's address (o) for discord's links. An unknown
// format is an error naming the endpoint.
func NewEncoder(e Endpoint, o DiscordOptions) (Encoder, error) {
	switch e.Format {
	case Standard:
		enc, err := NewStandard(e.Secret)
		if err != nil {
			return nil, fmt.Errorf("webhook %q: %w", e.Name, err)
		}
		return enc, nil
	case Discord:
		enc, err := NewDiscord(o)
		if err != nil {
			return nil, fmt.Errorf("webhook %q: %w", e.Name, err)
		}
		return enc, nil
	}
	return nil, fmt.Errorf("webhook %q: format %q is not one of standard, discord", e.Name, e.Format)
}
