package tui

import (
	"image/color"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/playertext"
)

// Common is what every pane shares: the service, the clock QA can move, the
// acting player, the styles and the screen size.
type Common struct {
	Svc    *market.Service
	Clock  *market.ManualClock
	Styles Styles
	IsDark bool
	W, H   int
	// Actor is the player the console acts as: the seller of a sell, the
	// buyer of a purchase. Chosen with the player picker ("p").
	Actor market.Player
	// Admin is a player with market.admin, the actor of admin removals and
	// forced expiry.
	Admin market.Player
	// NowUnix is the service clock's time at the last tick; Views use it so
	// that rendering never reads a clock.
	NowUnix int64
	// Wall is the wall clock for grace periods; tests replace it.
	Wall func() time.Time
	// Epoch changes whenever rows rendered before must be rendered again
	// although their data did not change: the background (and so the
	// palette) or the terminal's width method changed. Row caches key on it.
	Epoch int
}

// Styles are the console's styles for the current background.
type Styles struct {
	Header, HeaderKey, Tab, TabActive, Title, Dim, Selected, Cursor,
	OK, Err, Warn, QA, Price, Border, Chart, ChartDim lipgloss.Style
	Accent color.Color
}

// newStyles builds the styles for a dark or light background. Every style
// that carries meaning has a non-colour mark too (bold, reverse), so the
// console stays usable when NO_COLOR or a monochrome terminal drops colours.
func newStyles(isDark bool) Styles {
	ld := lipgloss.LightDark(isDark)
	accent := ld(lipgloss.Color("#5A4FCF"), lipgloss.Color("#9D8CFF"))
	dim := ld(lipgloss.Color("#666666"), lipgloss.Color("#8A8A8A"))
	green := ld(lipgloss.Color("#11772B"), lipgloss.Color("#4FD16E"))
	red := ld(lipgloss.Color("#B3261E"), lipgloss.Color("#FF6B63"))
	yellow := ld(lipgloss.Color("#8A5A00"), lipgloss.Color("#F5C451"))
	return Styles{
		Header:    lipgloss.NewStyle().Bold(true).Foreground(accent),
		HeaderKey: lipgloss.NewStyle().Foreground(dim),
		Tab:       lipgloss.NewStyle().Foreground(dim).Padding(0, 1),
		TabActive: lipgloss.NewStyle().Bold(true).Reverse(true).Foreground(accent).Padding(0, 1),
		Title:     lipgloss.NewStyle().Bold(true).Foreground(accent),
		Dim:       lipgloss.NewStyle().Foreground(dim),
		Selected:  lipgloss.NewStyle().Reverse(true).Bold(true),
		Cursor:    lipgloss.NewStyle().Reverse(true),
		OK:        lipgloss.NewStyle().Foreground(green),
		Err:       lipgloss.NewStyle().Foreground(red).Bold(true),
		Warn:      lipgloss.NewStyle().Foreground(yellow).Bold(true),
		QA:        lipgloss.NewStyle().Foreground(yellow).Bold(true),
		Price:     lipgloss.NewStyle().Foreground(green),
		Border:    lipgloss.NewStyle().Foreground(accent),
		Chart:     lipgloss.NewStyle().Foreground(accent),
		ChartDim:  lipgloss.NewStyle().Foreground(dim),
		Accent:    accent,
	}
}

// playerName returns a sanitized display name.
func playerName(p market.Player) string {
	if p.ID == uuid.Nil {
		return "—"
	}
	return playertext.Sanitize(p.Name)
}
