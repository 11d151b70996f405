package market

import (
	"github.com/google/uuid"
	"github.com/rynek/rynek/market/internal/item"
	"github.com/rynek/rynek/market/internal/record"
)

// Mailbox reasons that are not event reasons.
const (
	MailExpired          = "expired"
	MailPurchaseOverflow = "purchase-overflow"
	MailGiven            = "given"        // GiveItem, with a full inventory
	MailAdminRefund      = "admin-refund" // Refund, with the seller's inventory full (the original's reason)
)

// returnTo adds the ops that give it back to p: the first free inventory slot
// if there is one, otherwise p's mailbox. It returns where the item goes and
// how to apply the same change in memory once the batch is durable.
func (s *Service) returnTo(b *Batch, p *playerRecord, it item.Item, reason string, prev Money, now int64) (record.Destination, func()) {
	if slot := p.freeSlot(); slot >= 0 {
		inv := p.inv
		inv[slot] = it
		b.add(s.playerOp(p, p.balance, p.lastSell, &inv))
		return record.Destination{Slot: slot}, func() { p.inv[slot] = it }
	}
	m := mailEntry{id: uuid.New(), it: it, reason: reason, created: now, prev: prev}
	b.add(Op{Kind: OpPutMail, Mail: &MailRow{ID: m.id, Player: p.id, Item: s.blob(it), Reason: reason, Created: now, PrevPrice: prev}})
	return record.Destination{Slot: -1, Mail: m.id}, func() { p.mail = append(p.mail, m) }
}

// ClaimMail moves one mailbox entry into the player's inventory.
func (s *Service) ClaimMail(player uuid.UUID, entry uuid.UUID) error {
	if err := s.mutGuard(); err != nil {
		return err
	}
	p, err := s.player(player)
	if err != nil {
		return err
	}
	idx := -1
	for i, m := range p.mail {
		if m.id == entry {
			idx = i
			break
		}
	}
	if idx < 0 {
		return errf(CodeMailboxEmpty, "%s has no mailbox entry %s", p.name, entry)
	}
	_, err = s.claim(p, []int{idx})
	return err
}

// ClaimAll moves as many mailbox entries as fit into the player's inventory,
// oldest first, and returns how many moved. An empty mailbox and a full
// inventory are errors; a partial claim is not.
func (s *Service) ClaimAll(player uuid.UUID) (int, error) {
	if err := s.mutGuard(); err != nil {
		return 0, err
	}
	p, err := s.player(player)
	if err != nil {
		return 0, err
	}
	idx := make([]int, len(p.mail))
	for i := range idx {
		idx[i] = i
	}
	return s.claim(p, idx)
}

func (s *Service) claim(p *playerRecord, entries []int) (int, error) {
	if len(entries) == 0 {
		return 0, errf(CodeMailboxEmpty, "%s's mailbox is empty", p.name)
	}
	var free []int
	for i := range p.inv {
		if p.inv[i].Mat == 0 {
			free = append(free, i)
		}
	}
	if len(free) == 0 {
		return 0, errf(CodeInventoryFull, "%s's inventory is full", p.name)
	}
	n := min(len(free), len(entries))
	b := &s.batch
	b.Reset()
	inv := p.inv
	moves := make([]record.MailMove, n)
	for k := 0; k < n; k++ {
		m := p.mail[entries[k]]
		b.add(Op{Kind: OpDelMail, Mail: &MailRow{ID: m.id, Player: p.id}})
		inv[free[k]] = m.it
		moves[k] = record.MailMove{Mail: m.id, Slot: free[k]}
	}
	b.add(s.playerOp(p, p.balance, p.lastSell, &inv))
	b.log(EventRow{Kind: KindMailClaimed, At: s.nowMs(), Body: record.EncodeMailClaimed(nil, &record.MailClaimed{Player: p.id, Moves: moves})})
	if err := s.submit(b, func() {
		p.inv = inv
		taken := map[int]bool{}
		for k := 0; k < n; k++ {
			taken[entries[k]] = true
		}
		kept := p.mail[:0]
		for i, m := range p.mail {
			if !taken[i] {
				kept = append(kept, m)
			}
		}
		clear(p.mail[len(kept):])
		p.mail = kept
	}, nil); err != nil {
		return 0, err
	}
	return n, nil
}
