package market_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
)

// TestRelistFromTheMailbox: an expired listing goes back on the market from
// the mailbox at its price, the same stack, in one action; a gift, which
// was never listed, cannot be.
func TestRelistFromTheMailbox(t *testing.T) {
	w := newWorld(t)
	l := w.sell(w.alice, 1, 123.45)
	w.clock.Advance(8 * 24 * time.Hour)
	if n, _, err := w.svc.SweepExpired(); err != nil || n != 1 {
		t.Fatalf("swept %d (%v)", n, err)
	}
	st, err := w.svc.GetPlayer(w.alice.ID)
	must(t, err)
	if len(st.Mailbox) != 1 || st.Mailbox[0].PreviousPrice != 123.45 {
		t.Fatalf("mailbox %+v", st.Mailbox)
	}
	before, events := w.audit(), len(w.events)
	again, err := w.svc.RelistMail(w.alice.ID, st.Mailbox[0].ID)
	must(t, err)
	if again.ID == l.ID || again.Price != 123.45 || again.Item.ID != l.Item.ID || again.Seller != w.alice.ID {
		t.Fatalf("relisted %+v, was %+v", again, l)
	}
	if len(w.events) != events+1 {
		t.Fatalf("%d events, want one ListingCreatedEvent", len(w.events)-events)
	}
	if c, ok := w.events[len(w.events)-1].(market.ListingCreatedEvent); !ok || c.Listing().ID != again.ID {
		t.Fatalf("event %v", w.events[len(w.events)-1])
	}
	st, err = w.svc.GetPlayer(w.alice.ID)
	must(t, err)
	if len(st.Mailbox) != 0 {
		t.Fatalf("the mailbox still holds %+v", st.Mailbox)
	}
	if a := w.audit(); a.Stacks != before.Stacks || a.Items != before.Items || a.Listings != before.Listings+1 {
		t.Fatalf("audit %d stacks %d items %d listings, was %d %d %d", a.Stacks, a.Items, a.Listings, before.Stacks, before.Items, before.Listings)
	}
	w.reopen()
	if got, err := w.svc.GetListing(again.ID); err != nil || got.Item.ID != l.Item.ID {
		t.Fatalf("after a restart: %+v, %v", got, err)
	}

	_, inMailbox, err := w.svc.GiveItem(w.bob.ID, market.ItemStack{Material: "STONE", Amount: 1})
	must(t, err)
	for !inMailbox {
		_, inMailbox, err = w.svc.GiveItem(w.bob.ID, market.ItemStack{Material: "STONE", Amount: 1})
		must(t, err)
	}
	bob, err := w.svc.GetPlayer(w.bob.ID)
	must(t, err)
	gift := bob.Mailbox[0].ID
	nobody := uuid.MustParse("0b6c3f47-5d1e-4c1a-9a43-2a0e7d7e1f11")
	for _, c := range []struct {
		name   string
		player uuid.UUID
		entry  uuid.UUID
		code   market.Code
		msg    string
	}{
		{"a gift", w.bob.ID, gift, market.CodeNotRelistable, "mailbox entry " + gift.String() + " (given) was never listed: sell it from the inventory"},
		{"no such entry", w.bob.ID, nobody, market.CodeMailboxEmpty, "Bob has no mailbox entry " + nobody.String()},
		{"no such player", nobody, gift, market.CodeUnknownPlayer, "player " + nobody.String() + " does not exist"},
	} {
		version := w.svc.Version()
		_, err := w.svc.RelistMail(c.player, c.entry)
		var me *market.Error
		if !errors.As(err, &me) || me.Code != c.code || me.Msg != c.msg {
			t.Errorf("%s: got %v, want %s %q", c.name, err, c.code, c.msg)
		}
		if w.svc.Version() != version {
			t.Errorf("%s: a refusal changed the log", c.name)
		}
	}
}

// TestRelistKeepsTheListingRules: the cooldown applies to a relist as to any
// listing.
func TestRelistKeepsTheListingRules(t *testing.T) {
	w := newWorld(t, func(c *market.Config) { c.ListingCooldown = time.Minute })
	w.sell(w.alice, 1, 50)
	w.clock.Advance(8 * 24 * time.Hour)
	_, _, err := w.svc.SweepExpired()
	must(t, err)
	w.sell(w.alice, 0, 10) // starts the cooldown
	st, err := w.svc.GetPlayer(w.alice.ID)
	must(t, err)
	_, err = w.svc.RelistMail(w.alice.ID, st.Mailbox[0].ID)
	errText(t, err, "Alice must wait 60s before listing again")
}

func TestListingsBySellerNilIsEmpty(t *testing.T) {
	w := newWorld(t)
	w.sell(w.alice, 0, 10)
	ls, err := w.svc.GetListingsBySeller(uuid.Nil)
	must(t, err)
	if len(ls) != 0 {
		t.Fatalf("GetListingsBySeller(uuid.Nil) returned %d listings", len(ls))
	}
}

func TestExpiredUnsweptAnswersExpiredAndOwnerTakesItBack(t *testing.T) {
	w := newWorld(t, func(c *market.Config) { c.ListingTTL = time.Hour })
	l := w.sell(w.alice, 0, 10)
	other := w.sell(w.alice, 1, 10)
	w.clock.Advance(time.Hour)
	want := fmt.Sprintf("listing #%d has expired", l.ID)
	_, err := w.svc.GetListing(l.ID)
	errText(t, err, want)
	_, err = w.svc.Buy(w.bob, l.ID)
	errText(t, err, want)
	errText(t, w.svc.ForceExpire(l.ID, w.admin), want)
	errText(t, w.svc.RemoveListing(l.ID, w.bob), fmt.Sprintf("Bob does not own listing #%d and lacks market.admin", l.ID))
	w.events = nil
	must(t, w.svc.RemoveListing(l.ID, w.alice))
	must(t, w.svc.RemoveListing(other.ID, w.admin))
	if len(w.events) != 2 || w.events[0].(market.ListingRemovedEvent).Reason() != market.ReasonRemoved ||
		w.events[1].(market.ListingRemovedEvent).Reason() != market.ReasonAdminRemoved {
		t.Fatalf("events %v", w.events)
	}
	_, err = w.svc.GetListing(l.ID)
	errText(t, err, fmt.Sprintf("listing #%d does not exist", l.ID))
	if st := w.stack(w.alice, 0); st.ID != l.Item.ID {
		t.Fatalf("the item did not come back: %+v", st)
	}
	w.audit()
}
