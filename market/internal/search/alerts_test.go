package search

import (
	"strings"
	"testing"

	"github.com/rynek/rynek/market/catalog"
	"github.com/rynek/rynek/market/internal/item"
)

// testAlert is the tests' handle of an alert, as the market's record is
// the market's.
type testAlert struct {
	query string
	words []string
}

// TestAlertsMatchAsQueryDoes: an alert fires when each of its words
// is inside one of the listing's words, at or under its unit ceiling, never
// for its owner, and once however many of the listing's words lead to it.
func TestAlertsMatchAsQueryDoes(t *testing.T) {
	diamond, _ := catalog.MaterialID("DIAMOND")
	sword, _ := catalog.MaterialID("DIAMOND_SWORD")
	long := strings.Repeat("x", MaxAlertWordBytes) + "yz"
	var ai Alerts[*testAlert]
	alerts := map[string]*testAlert{}
	for _, c := range []struct {
		query string
		max   int64
	}{{"diam", 100}, {"sword diamond", 10_000}, {"DIAMOND", 60}, {long, 10_000}, {"łódź", 10_000}, {"nothing", 10_000}} {
		a := &testAlert{query: c.query, words: ParseText(c.query).Words}
		alerts[c.query] = a
		ai.Add(1, a, a.words, c.max)
	}
	names := func(refs []AlertRef[*testAlert]) string {
		var out []string
		for _, r := range refs {
			out = append(out, r.Alert.query)
		}
		return strings.Join(out, "|")
	}
	for _, c := range []struct {
		name  string
		it    item.Item
		price int64
		owner int32
		want  []string
	}{
		{"diamonds at 1.00 each", item.Item{Mat: diamond, Amount: 10}, 1000, 2, []string{"diam"}},
		{"diamonds at 0.60 each", item.Item{Mat: diamond, Amount: 10}, 600, 2, []string{"diam", "DIAMOND"}},
		{"the owner's own", item.Item{Mat: diamond, Amount: 10}, 600, 1, nil},
		{"a sword at 90.00", item.Item{Mat: sword, Amount: 1}, 9000, 2, []string{"sword diamond"}},
		{"a named sword", item.Item{Mat: sword, Amount: 1, X: &item.Extra{Name: "Miecz z Łodzi " + long[:MaxAlertWordBytes]}}, 9000, 2, []string{"sword diamond", "łódź"}},
	} {
		got := ai.Fired(c.it, c.price, c.owner, "Sprzedawca")
		var want []string
		for _, q := range c.want {
			want = append(want, alerts[q].query)
		}
		gotNames := names(got)
		for _, q := range want {
			if !strings.Contains("|"+gotNames+"|", "|"+q+"|") {
				t.Errorf("%s: fired %q, want %q among them", c.name, gotNames, q)
			}
		}
		if len(got) != len(want) {
			t.Errorf("%s: fired %q, want exactly %q", c.name, gotNames, strings.Join(want, "|"))
		}
	}
	got := "|" + names(ai.Fired(item.Item{Mat: sword, Amount: 1, X: &item.Extra{Name: "Lodz " + long}}, 100, 2, "Sprzedawca")) + "|"
	if !strings.Contains(got, "|łódź|") || !strings.Contains(got, "|"+long+"|") {
		t.Errorf("a sword named with the whole long word and Łódź unfolded: fired %q", got)
	}
	for _, a := range alerts {
		ai.Remove(a, a.words)
	}
	if ai.Len() != 0 {
		t.Fatalf("%d words left after removing every alert", len(ai.byWord))
	}
}

// TestAnAlertFiledLaterFires: a listing's words keep the pieces alerts are
// filed under (piecesOf), and a word filed or unfiled after a listing of
// the same words came must count for the next.
func TestAnAlertFiledLaterFires(t *testing.T) {
	diamond, _ := catalog.MaterialID("DIAMOND")
	it := item.Item{Mat: diamond, Amount: 1}
	var ai Alerts[*testAlert]
	fired := func() int { return len(ai.Fired(it, 100, 2, "Sprzedawca")) }
	early := &testAlert{query: "diamond", words: ParseText("diamond").Words}
	ai.Add(1, early, early.words, 10_000)
	if n := fired(); n != 1 {
		t.Fatalf("with one alert: %d fired, want 1", n)
	}
	late := &testAlert{query: "amon", words: ParseText("amon").Words}
	ai.Add(1, late, late.words, 10_000)
	if n := fired(); n != 2 {
		t.Fatalf("after a second alert under a new word: %d fired, want 2", n)
	}
	ai.Remove(early, early.words)
	if n := fired(); n != 1 {
		t.Fatalf("after the first was removed: %d fired, want 1", n)
	}
	ai.Add(1, early, early.words, 10_000)
	if n := fired(); n != 2 {
		t.Fatalf("after the first came back: %d fired, want 2", n)
	}
}
