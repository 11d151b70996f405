package market

import (
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market/internal/item"
	"github.com/rynek/rynek/market/internal/record"
	"github.com/rynek/rynek/market/playertext"
)

// NewPlayer is a player joining the embedded world (AddPlayer): who they
// are, and what they bring.
type NewPlayer struct {
	ID          uuid.UUID // uuid.Nil: a random one
	Name        string    // the game's rules: 3–16 letters, digits or underscores
	Permissions []string
	Balance     float64     // 0, or a price-like amount with at most two decimals
	Items       []ItemStack // the inventory, slot by slot (at most InventorySize); a zero ItemStack is an empty slot
}

// maxStartingBalance bounds a new player's balance: far above any price, far
// below where sums of balances could overflow.
const maxStartingBalance Money = 1_000_000_000_00

// AddPlayer adds a player to the embedded world, as the game does when
// someone joins for the first time: the console and the traffic bots use it
// so that an empty market can be used at all. A name another player has
// (in any letter case) or an id that exists is refused, as is anything
// invalid, and nothing changes. The log records the join, so that a copy of
// the market following the log gets the player too.
func (s *Service) AddPlayer(n NewPlayer) (Player, error) {
	if err := s.mutGuard(); err != nil {
		return Player{}, err
	}
	if err := validPlayerName(n.Name); err != nil {
		return Player{}, err
	}
	if n.ID == uuid.Nil {
		n.ID = uuid.New()
	}
	if s.playerByID[n.ID] != nil {
		return Player{}, errf(CodePlayerExists, "a player with id %s exists", n.ID)
	}
	if other := s.nameHolder(n.Name); other != nil {
		return Player{}, errf(CodePlayerExists, "a player called %s exists", other.name)
	}
	if err := validPermissions(n.Permissions); err != nil {
		return Player{}, err
	}
	var balance Money
	if n.Balance != 0 {
		var err error
		if balance, err = PriceToMoney(n.Balance, 1, maxStartingBalance); err != nil {
			return Player{}, errf(CodeInvalidPlayer, "starting balance: %v", err)
		}
	}
	brought := Issuance{MoneyIn: balance}
	if len(n.Items) > InventorySize {
		return Player{}, errf(CodeInvalidPlayer, "%d items do not fit in %d inventory slots", len(n.Items), InventorySize)
	}
	var inv item.Inventory
	for i, stack := range n.Items {
		if stack.Material == "" && stack.Amount == 0 {
			continue // an empty slot
		}
		if stack.ID == uuid.Nil {
			stack.ID = uuid.New()
		}
		it, err := toItem(stack)
		if err != nil {
			return Player{}, errf(CodeInvalidItem, "item %d: %v", i+1, err)
		}
		inv[i] = it
		brought.ItemsIn += int64(it.Amount)
	}
	row := PlayerRow{ID: n.ID, Name: n.Name, Perms: strings.Join(n.Permissions, ","), Balance: balance,
		Inventory: item.EncodeInventory(nil, &inv)}
	b := &s.batch
	b.Reset()
	b.add(Op{Kind: OpAddPlayer, Player: &row})
	if brought != (Issuance{}) {
		b.add(Op{Kind: OpIssuance, Meta: MetaRow{Issuance: brought}})
	}
	b.log(EventRow{Kind: KindPlayerAdded, At: s.nowMs(), Body: record.EncodePlayerAdded(nil, &record.PlayerAdded{
		ID: row.ID, Name: row.Name, Perms: row.Perms, Balance: int64(row.Balance), Inventory: row.Inventory})})
	pr := &playerRecord{id: n.ID, name: n.Name, perms: append([]string(nil), n.Permissions...), balance: balance, inv: inv,
		stored: storedBlob(row.Inventory)}
	if err := s.submit(b, func() {
		pr.idx = int32(len(s.players))
		s.players = append(s.players, pr)
		s.playerByID[pr.id] = pr
	}, nil); err != nil {
		return Player{}, err
	}
	return pr.public(), nil
}

// nameHolder is the player whose name is name in any letter case, or nil.
func (s *Service) nameHolder(name string) *playerRecord {
	for _, p := range s.players {
		if strings.EqualFold(p.name, name) {
			return p
		}
	}
	return nil
}

// validPermissions holds permissions to what a player row can store: words
// without commas, which separate them there.
func validPermissions(perms []string) error {
	for _, perm := range perms {
		if perm == "" || strings.ContainsAny(perm, ", \t\n") {
			return errf(CodeInvalidPlayer, "permission %q must be one word without commas", playertext.Excerpt(perm))
		}
	}
	return nil
}

// splitPerms reads a player row's permissions (nil for none).
func splitPerms(perms string) []string {
	if perms == "" {
		return nil
	}
	return strings.Split(perms, ",")
}

// Join is the game's join: the player with this id arrives under this name
// with these permissions. An unknown id is added with an empty inventory and
// no money (AddPlayer); a known one takes the name and permissions when they
// changed (a rename in the game, a new rank), and nothing is written when
// they did not. It reports whether the player is new. A name another player
// has (in any letter case) is refused: that player has changed their name
// in the game since, and joins under the new one first (or an admin renames
// them with Join).
func (s *Service) Join(id uuid.UUID, name string, perms []string) (Player, bool, error) {
	if err := s.mutGuard(); err != nil {
		return Player{}, false, err
	}
	if id == uuid.Nil {
		return Player{}, false, errf(CodeInvalidPlayer, "a joining player needs their game id, not the nil UUID")
	}
	p := s.playerByID[id]
	if p == nil {
		added, err := s.AddPlayer(NewPlayer{ID: id, Name: name, Permissions: perms})
		return added, err == nil, err
	}
	if err := validPlayerName(name); err != nil {
		return Player{}, false, err
	}
	if other := s.nameHolder(name); other != nil && other != p {
		return Player{}, false, errf(CodePlayerExists, "the name %s belongs to player %s; they join under their new name first", other.name, other.id)
	}
	if err := validPermissions(perms); err != nil {
		return Player{}, false, err
	}
	joined := strings.Join(perms, ",")
	if name == p.name && joined == strings.Join(p.perms, ",") {
		return p.public(), false, nil
	}
	row := PlayerRow{ID: p.id, Name: name, Perms: joined}
	b := &s.batch
	b.Reset()
	b.add(Op{Kind: OpPlayerProfile, Int: p.version + int64(p.unsettled), Player: &row})
	b.log(EventRow{Kind: KindPlayerChanged, At: s.nowMs(), Body: record.EncodePlayerChanged(nil, &record.PlayerChanged{
		ID: row.ID, Name: row.Name, Perms: row.Perms})})
	if err := s.submit(b, func() { s.setProfileLocked(p, name, perms) }, nil); err != nil {
		return Player{}, false, err
	}
	return p.public(), false, nil
}

// setProfileLocked gives p a name and permissions. The seller's name is
// part of what finds a listing, so p's listings are indexed again.
func (s *Service) setProfileLocked(p *playerRecord, name string, perms []string) {
	p.perms = append([]string(nil), perms...)
	if name == p.name {
		return
	}
	var mine []*listingRecord
	if ids := s.ix.Seller(p.idx); ids != nil {
		for it := ids.Iterator(); it.HasNext(); {
			mine = append(mine, s.listings.Get(it.Next()))
		}
	}
	for _, r := range mine { // out of the index under the old name's words…
		e := r.entry()
		s.tokenScratch = s.ix.TokenIDs(s.tokenScratch, e, p.name)
		s.ix.Remove(e, s.tokenScratch)
	}
	p.name = name
	s.ix.ForgetSeller(p.idx)
	for _, r := range mine { // …and in under the new one's
		e := r.entry()
		s.tokenScratch = s.ix.TokenIDs(s.tokenScratch, e, p.name)
		s.ix.Add(e, s.tokenScratch)
	}
}

// validPlayerName holds a name to the game's rules for player names.
func validPlayerName(name string) error {
	if len(name) < 3 || len(name) > 16 {
		return errf(CodeInvalidPlayer, "a player name has 3 to 16 characters, %q has %d", playertext.Excerpt(name), len([]rune(name)))
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			return errf(CodeInvalidPlayer, "a player name has only letters a–z, digits and underscores; %q has %q", playertext.Excerpt(name), r)
		}
	}
	return nil
}

// Players returns every player of the world, in load order.
func (s *Service) Players() ([]Player, error) {
	if err := s.readGuard(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]Player, len(s.players))
	for i, p := range s.players {
		out[i] = p.public()
	}
	return out, nil
}

// GetPlayer returns a snapshot of a player's state.
func (s *Service) GetPlayer(id uuid.UUID) (PlayerState, error) {
	if err := s.readGuard(); err != nil {
		return PlayerState{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	p, err := s.player(id)
	if err != nil {
		return PlayerState{}, err
	}
	st := PlayerState{Player: p.public(), Balance: p.balance.Float()}
	for i, it := range p.inv {
		if it.Mat != 0 {
			stack := stackOf(it)
			st.Inventory[i] = &stack
		}
	}
	for _, m := range p.mail {
		st.Mailbox = append(st.Mailbox, MailboxEntry{ID: m.id, Item: stackOf(m.it), Reason: m.reason,
			CreatedAt: time.UnixMilli(m.created).UTC(), PreviousPrice: m.prev.Float()})
	}
	return st, nil
}

func (s *Service) actor(p Player) (*playerRecord, error) { return s.player(p.ID) }

// player is the record of player id, or the UNKNOWN_PLAYER error every
// operation gives for an id the world does not have. A read calls it under
// s.mu's read lock; the main thread may call it without.
func (s *Service) player(id uuid.UUID) (*playerRecord, error) {
	if p := s.playerByID[id]; p != nil {
		return p, nil
	}
	return nil, errf(CodeUnknownPlayer, "player %s does not exist", id)
}

// PlayerByName finds a player by exact, then case-insensitive, name.
func (s *Service) PlayerByName(name string) (Player, error) {
	if err := s.readGuard(); err != nil {
		return Player{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, p := range s.players {
		if p.name == name {
			return p.public(), nil
		}
	}
	for _, p := range s.players {
		if strings.EqualFold(p.name, name) {
			return p.public(), nil
		}
	}
	return Player{}, errf(CodeUnknownPlayer, "no player is called %q", playertext.Excerpt(name))
}
