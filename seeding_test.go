package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/rynek/rynek/market/sqlite"
)

// TestSeedObeysTheRulesFile: a new market is seeded under the rules file
// beside it, so no seeded seller is over the file's listing limit (the big
// ones have a tier of their own) and each has room to sell.
func TestSeedObeysTheRulesFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.db")
	if err := os.WriteFile(filepath.Join(dir, "rynek.yml"), []byte("listings:\n  limit: 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mf := marketFlags{config: new(string)}
	_, rules, err := mf.marketRules(path)
	if err != nil {
		t.Fatal(err)
	}
	svc, _, _, err := open(path, sqlite.Options{}, "", 900, 1, "Rynek", rules, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	players, err := svc.Players()
	if err != nil {
		t.Fatal(err)
	}
	tiers := 0
	for _, p := range players {
		room, err := svc.ListingRoom(p.ID)
		if err != nil {
			t.Fatal(err)
		}
		if room.Listings >= room.Limit {
			t.Errorf("%s has %d listings, limit %d", p.Name, room.Listings, room.Limit)
		}
		if room.Limit > 3 {
			tiers++
		}
	}
	if tiers == 0 {
		t.Fatal("900 listings among 300 players under a limit of 3, and nobody has a tier")
	}
}
