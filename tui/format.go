package tui

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/catalog"
	"github.com/rynek/rynek/market/playertext"
)

// money renders 1234567.5 as "1 234 567.50" (thin groups read well in both
// Polish and English), and a negative amount with the minus sign "−", as
// the console's in/out columns write a purchase, never ASCII "-".
func money(v float64) string {
	neg := v < 0
	cents := int64(math.Round(math.Abs(v) * 100))
	whole := strconv.FormatInt(cents/100, 10)
	var b strings.Builder
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(' ')
		}
		b.WriteRune(c)
	}
	s := fmt.Sprintf("%s.%02d", b.String(), cents%100)
	if neg {
		return "−" + s
	}
	return s
}

// count renders an integer with groups.
func count(n int) string {
	s := money(float64(n))
	return s[:len(s)-3]
}

// Until renders the time left: "6d 23h", "4h 12m", "59s", or "expired".
// Exported for the comparison suite, whose stock table shows the same column.
func Until(t time.Time, nowUnix int64) string {
	d := time.Duration(t.Unix()-nowUnix) * time.Second
	switch {
	case d <= 0:
		return "expired"
	case d >= 24*time.Hour:
		return fmt.Sprintf("%dd %dh", d/(24*time.Hour), (d%(24*time.Hour))/time.Hour)
	case d >= time.Hour:
		return fmt.Sprintf("%dh %dm", d/time.Hour, (d%time.Hour)/time.Minute)
	case d >= time.Minute:
		return fmt.Sprintf("%dm %ds", d/time.Minute, (d%time.Minute)/time.Second)
	}
	return fmt.Sprintf("%ds", d/time.Second)
}

// itemName is the display name if any (with § codes, for RenderMC) or the
// material's readable name.
func itemName(s market.ItemStack) string {
	if s.DisplayName != "" {
		return s.DisplayName
	}
	if info, ok := catalog.LookupMaterial(s.Material); ok {
		return info.Name
	}
	return s.Material
}

// materialName is a material's readable name, from its catalogue key.
func materialName(key string) string {
	return playertext.Sanitize(itemName(market.ItemStack{Material: key}))
}

// enchants renders "Sharpness V, Unbreaking III".
func enchants(s market.ItemStack) string {
	var parts []string
	for _, e := range s.Enchantments {
		name := e.Key
		if info, ok := catalog.LookupEnchantment(e.Key); ok {
			name = info.Name
		}
		parts = append(parts, name+" "+roman(e.Level))
	}
	return strings.Join(parts, ", ")
}

func roman(n int) string {
	if n <= 0 || n > 10 {
		return strconv.Itoa(n)
	}
	return [...]string{"", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X"}[n]
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05") }

func shortDur(d time.Duration) string {
	if d >= 24*time.Hour && d%(24*time.Hour) == 0 {
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	}
	if d >= time.Hour {
		if d%time.Hour == 0 {
			return fmt.Sprintf("%dh", d/time.Hour)
		}
		return fmt.Sprintf("%dh%02dm", d/time.Hour, d%time.Hour/time.Minute)
	}
	return d.String()
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// shortID is the last 8 characters of a transaction id: ids are version 7
// UUIDs, whose first characters are a timestamp shared by every transaction
// of the same minute, while the tail is random.
func shortID(id string) string {
	if len(id) > 8 {
		return id[len(id)-8:]
	}
	return id
}
