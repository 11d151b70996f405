package webhook

import "fmt"

// NewEncoder is the encoder of an endpoint's format: its secret checked
// for standard; discord's embeds without links to the board (EncoderWith
// adds them). An unknown format is an error naming the endpoint.
func NewEncoder(e Endpoint) (Encoder, error) { return EncoderWith(DiscordOptions{})(e) }

// EncoderWith is NewEncoder with the options of the discord format: the
// board's public address its embeds link to, the name its messages go by.
// It has the shape of the delivery's Options.Encoder.
func EncoderWith(o DiscordOptions) func(Endpoint) (Encoder, error) {
	return func(e Endpoint) (Encoder, error) {
		switch e.Format {
		case Standard:
			enc, err := NewStandard(e.Secret)
			if err != nil {
				return nil, fmt.Errorf("webhook %s: %w", e.Name, err)
			}
			return enc, nil
		case Discord:
			enc, err := NewDiscord(o)
			if err != nil {
				return nil, fmt.Errorf("webhook %s: %w", e.Name, err)
			}
			return enc, nil
		}
		return nil, fmt.Errorf("webhook %s: format %q is not one of standard, discord", e.Name, e.Format)
	}
}
