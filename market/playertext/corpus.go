package playertext

// Hostile is an escape-injection corpus: what hostile players put in names
// and lore to take over a terminal or to hide text. The tests of every layer
// that shows or indexes player text feed it through.
var Hostile = []string{
	"\x1b]52;c;ZXZpbA==\x07", // OSC 52 clipboard write
	"\x1b]0;pwned\x07",       // window title
	"\x1b[2J\x1b[H",          // clear screen, cursor home
	"\x1bP+q\x1b\\",          // DCS
	"\x1b_Gpayload\x1b\\",    // APC (kitty graphics)
	"\x1b]8;;https://evil.example\x07link\x1b]8;;\x07", // OSC 8 hyperlink
	"\x9b31m",                        // raw 8-bit C1 CSI
	"\u009b31m",                      // C1 as a code point
	"SAFE-TEXT\rEVIL",                // carriage return overwrite
	"back\bspace\a bell",             // BS, BEL
	"\u202egnp.exe",                  // bidi override
	"zero\u200bwidth\u2066iso\u2069", // format characters
	"tab\tnew\nline\vvt\fff",         // whitespace controls
	"\x7fdel",                        // DEL
	"§x§k§lobf §4red §zbad §",        // § codes, unknown and trailing
	"Ad\u200dmin",                    // a joiner between letters
}
