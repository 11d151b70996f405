package playertext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzSanitize: whatever the input, the output is valid UTF-8 with nothing
// unsafe in it, sanitizing it again changes nothing, and text the shortcut
// passes untouched is what the full work would have made of it.
func FuzzSanitize(f *testing.F) {
	for _, h := range Hostile {
		f.Add(h)
	}
	f.Add("👩‍💻 café 東京 Łódź")
	f.Fuzz(func(t *testing.T, s string) {
		for _, out := range []string{Sanitize(s), Plain(s)} {
			if !utf8.ValidString(out) {
				t.Fatalf("invalid UTF-8 from %q", s)
			}
			if at, r, found := Unsafe(out); found || strings.ContainsRune(out, '\n') {
				t.Fatalf("%q: %U at %d in %q", s, r, at, out)
			}
		}
		if out := Sanitize(s); Sanitize(out) != out {
			t.Fatalf("%q: sanitized twice %q, once %q", s, Sanitize(out), out)
		}
		if isClean(s) && sanitize(s) != s {
			t.Fatalf("clean text changed: %q -> %q", s, sanitize(s))
		}
	})
}

func TestSanitizeKeepsLegitimateText(t *testing.T) {
	for _, s := range []string{"👩‍💻 café 東京", "Łódź Księżycowa", "Grzegorz_Brzęczyszczykiewicz", "a b", "§6Legendarny Miecz"} {
		if got := Sanitize(s); got != s {
			t.Errorf("Sanitize(%q) = %q", s, got)
		}
	}
}

func TestSanitize(t *testing.T) {
	for in, want := range map[string]string{
		"SAFE-TEXT\rEVIL":                                  "SAFE-TEXT EVIL",
		"\x1b]0;pwned\x07Evil":                             "Evil",
		"\x1b_Ghidden\x1b\\Evil":                           "Evil",
		"\x1b]8;;https://evil.example\x07link\x1b]8;;\x07": "link",
		"\u202egnp.exe":                                    "gnp.exe",
		"bad\xc3byte":                                      "bad\uFFFDbyte",
		"bad\xffbyte":                                      "badbyte", // ansi.Strip drops it as a raw C1 byte
		// The joiner stays only inside emoji sequences (issue 10, defect 12).
		"Ad\u200dmin": "Admin", "👩\u200d💻": "👩\u200d💻", "👩🏽\u200d💻": "👩🏽\u200d💻",
		"a\u200d💻": "a💻", "👩\u200d": "👩", "\u200d": "",
	} {
		if got := Sanitize(in); got != want {
			t.Errorf("Sanitize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRunsAndPlain(t *testing.T) {
	type run struct {
		code rune
		text string
	}
	for _, c := range []struct {
		in    string
		runs  []run
		plain string
	}{
		{"plain", []run{{0, "plain"}}, "plain"},
		{"§6Gold §lBold§r plain", []run{{'6', "Gold "}, {'l', "Bold"}, {'r', " plain"}}, "Gold Bold plain"},
		{"§L§4x", []run{{'l', ""}, {'4', "x"}}, "x"},
		{"a§", []run{{0, "a"}}, "a"},
		{"a§r", []run{{0, "a"}, {'r', ""}}, "a"},
		{"", nil, ""},
		// A code inside an escape sequence splits it: each run is sanitized
		// alone, as the console styles and shows them one by one.
		{"\x1b]0;pw§rned\x07Evil", []run{{0, "\x1b]0;pw"}, {'r', "ned\x07Evil"}}, "nedEvil"},
	} {
		var got []run
		for code, text := range Runs(c.in) {
			got = append(got, run{code, text})
		}
		if len(got) != len(c.runs) {
			t.Errorf("Runs(%q) = %q, want %q", c.in, got, c.runs)
			continue
		}
		for i := range got {
			if got[i] != c.runs[i] {
				t.Errorf("Runs(%q) = %q, want %q", c.in, got, c.runs)
			}
		}
		if p := Plain(c.in); p != c.plain {
			t.Errorf("Plain(%q) = %q, want %q", c.in, p, c.plain)
		}
	}
}

func TestUnsafe(t *testing.T) {
	for _, s := range []string{"\x1b", "a\rb", "\u009b", "\u202e", "\u200b", "\xff"} {
		if _, _, found := Unsafe(s); !found {
			t.Errorf("Unsafe(%q) found nothing", s)
		}
	}
	for _, s := range []string{"line\nline", "👩\u200d💻", "Łódź"} {
		if at, r, found := Unsafe(s); found {
			t.Errorf("Unsafe(%q) found %U at %d", s, r, at)
		}
	}
}

// TestFoldFoldsToItself: search stores folded words and folds what players
// type, so a folded word must fold to itself, for every rune there is. ẞ
// once folded to ß, which folds to "ss": a fuzzer found it.
func TestFoldFoldsToItself(t *testing.T) {
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		once := Fold(string(r))
		if twice := Fold(once); twice != once {
			t.Errorf("Fold(%q) = %q, folded again %q", r, once, twice)
		}
	}
	for in, want := range map[string]string{"Łódź": "lodz", "STRAẞE": "strasse", "Ångström": "angstrom", "ÉCLAIR": "eclair"} {
		if got := Fold(in); got != want {
			t.Errorf("Fold(%q) = %q, want %q", in, got, want)
		}
	}
}
