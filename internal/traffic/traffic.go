// Package traffic runs the demo's economy: bots that act as the market's
// players — sell, buy, take back and relist, auction and bid, place, fill
// and cancel buy orders (and let some expire), earn and spend — at a chosen
// rate, for demos and load tests (the console's QA bots and `rynek serve
// --bots`). They act through the service's public operations, their
// changes made on the main thread like a game server's players' (Step runs
// a turn whole on it; a Crowd looks at the market off it), and keep the
// market in balance for hours: the active listings stay near the count the
// bots found, money and items come from outside and leave through the
// issuance account, and a refusal is a rule a player met, rare.
package traffic

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rynek/rynek/market"
)

// MinPlayers is how many players traffic needs: a buyer and a seller.
const MinPlayers = 2

// Recruits is how many players Recruit adds to a market with fewer than
// MinPlayers, each with Balance and the starter kit.
const (
	Recruits = 6
	Balance  = 5000.0
)

// StarterKit is what a new player (one added from the console, or a
// recruit) brings, so that they can sell at once: a few common stacks and
// one enchanted tool.
func StarterKit() []market.ItemStack {
	return []market.ItemStack{
		{Material: "DIAMOND", Amount: 64},
		{Material: "OAK_LOG", Amount: 64},
		{Material: "IRON_INGOT", Amount: 32},
		{Material: "BREAD", Amount: 16},
		{Material: "DIAMOND_SWORD", Amount: 1, Enchantments: []market.Enchantment{{Key: "sharpness", Level: 3}}},
	}
}

// Recruit adds Recruits players named Bot_1, Bot_2, … (skipping names
// taken), as the game would when they join. Main thread only.
func Recruit(svc *market.Service) ([]market.Player, error) {
	var added []market.Player
	for n := 1; len(added) < Recruits && n <= 100*Recruits; n++ {
		p, err := svc.AddPlayer(market.NewPlayer{Name: fmt.Sprintf("Bot_%d", n), Balance: Balance, Items: StarterKit()})
		var me *market.Error
		switch {
		case errors.As(err, &me) && me.Code == market.CodePlayerExists:
			continue
		case err != nil:
			return added, err
		}
		added = append(added, p)
	}
	if len(added) == 0 {
		return nil, fmt.Errorf("the names Bot_1 to Bot_%d are all taken", 100*Recruits)
	}
	return added, nil
}

// Action is what one bot did with its turn.
type Action uint8

// The actions. Each but Waited is one change to the market.
const (
	Waited         Action = iota // nothing worth doing: nobody could list, nothing worth its price
	Sold                         // listed a stack of the inventory
	Relisted                     // listed a mailbox entry again at its price (an expired listing)
	Bought                       // bought the cheapest listing of something, at a fair price
	Removed                      // took back their oldest listing, to price it again
	Claimed                      // took a mailbox entry into the inventory
	Earned                       // money from the game (a deposit into the issuance account)
	Spent                        // money spent in the game (a withdrawal)
	Gathered                     // a stack from the game (mined, farmed: a gift into the market)
	UsedUp                       // a stack used up in the game (taken out of the market)
	Auctioned                    // put a stack up for auction
	Bid                          // bid on an auction, at its minimum
	Ordered                      // placed a buy order for a commodity
	CancelledOrder               // cancelled a buy order of theirs
	SoldToOrder                  // sold a stack of the inventory into a buy order
	ListedToOrder                // listed a stack at a buy order's price, which the order bought
	actionCount
)

var actionNames = [actionCount]string{"waited", "sold", "relisted", "bought", "removed", "claimed", "earned", "spent", "gathered", "used up",
	"auctioned", "bid", "ordered", "cancelled an order", "sold to an order", "listed into an order"}

func (a Action) String() string {
	if a < actionCount {
		return actionNames[a]
	}
	return fmt.Sprintf("action(%d)", a)
}

// Result counts what a Step (or many, Add) did.
type Result struct {
	OK, Refused int
	LastErr     error // the last refusal, if any
	// Actions counts each kind of action that happened (Waited included);
	// Refusals counts the refused ones by the market's error code
	// ("OTHER" for an error without one).
	Actions  [actionCount]int
	Refusals map[market.Code]int
}

// Add adds o's counts to r.
func (r *Result) Add(o Result) {
	r.OK += o.OK
	r.Refused += o.Refused
	if o.LastErr != nil {
		r.LastErr = o.LastErr
	}
	for i, n := range o.Actions {
		r.Actions[i] += n
	}
	for c, n := range o.Refusals {
		r.count(c, n)
	}
}

func (r *Result) count(c market.Code, n int) {
	if r.Refusals == nil {
		r.Refusals = map[market.Code]int{}
	}
	r.Refusals[c] += n
}

func (r *Result) record(a Action, changes int, err error) {
	if errors.Is(err, errStopped) {
		return // not done, nor refused: the loop stopped
	}
	r.Actions[a]++
	if err != nil {
		r.refuse(err)
		return
	}
	r.OK += changes
}

func (r *Result) refuse(err error) {
	r.Refused++
	r.LastErr = err
	code := market.Code("OTHER")
	var me *market.Error
	if errors.As(err, &me) {
		code = me.Code
	}
	r.count(code, 1)
}

// Undo counts changes the store refused after the action that made them
// had returned (market.Config.CommitBehind): each was counted done, and
// is a refusal instead.
func (r *Result) Undo(refused []market.Refusal) {
	for _, x := range refused {
		r.OK = max(r.OK-1, 0)
		r.refuse(x.Err)
	}
}

// RefusalText lists the refusals by code, most first: "COOLDOWN 3,
// PURCHASE_CAP 1"; "" for none.
func (r Result) RefusalText() string {
	codes := make([]market.Code, 0, len(r.Refusals))
	for c := range r.Refusals {
		codes = append(codes, c)
	}
	slices.SortFunc(codes, func(a, b market.Code) int {
		if d := r.Refusals[b] - r.Refusals[a]; d != 0 {
			return d
		}
		return strings.Compare(string(a), string(b))
	})
	parts := make([]string, len(codes))
	for i, c := range codes {
		parts[i] = fmt.Sprintf("%s %d", c, r.Refusals[c])
	}
	return strings.Join(parts, ", ")
}

// ActionText lists the actions that happened, most first: "bought 120,
// sold 97, …".
func (r Result) ActionText() string {
	order := make([]Action, 0, actionCount)
	for a := range actionCount {
		if r.Actions[a] > 0 {
			order = append(order, a)
		}
	}
	slices.SortStableFunc(order, func(a, b Action) int { return r.Actions[b] - r.Actions[a] })
	parts := make([]string, len(order))
	for i, a := range order {
		parts[i] = fmt.Sprintf("%s %d", a, r.Actions[a])
	}
	return strings.Join(parts, ", ")
}

// Generator is the bots' economy: each turn a random player acts on what
// the market looks like. Below the target count of active listings more of
// them sell (and relist), above it more of them buy and take back, so the
// count holds near the target at any rate. Each checks what a player can
// see before acting — their room under the listing limit and cooldown,
// their money, their inventory — so a refusal is a rule they could not see
// coming (another server's purchase first, a purchase cap).
type Generator struct {
	rng   *rand.Rand
	carry float64
	// mu guards the economy's figures below, which turns running beside
	// each other (Crowd) share.
	mu sync.Mutex
	// target is the active listings the economy holds around: the count
	// when the bots first act (at least a few a player).
	target int
	// fees is the fee account when the bots first acted, and paid what
	// the bots' players have earned in the game since less what they
	// spent there: the players' money stays what it was (earn).
	fees, paid float64
}

// New returns a generator; the same seed gives the same choices.
func New(seed uint64) *Generator {
	return &Generator{rng: rand.New(rand.NewPCG(seed, 1))}
}

// Target is the active listings the economy holds around; 0 until it first
// acts.
func (g *Generator) Target() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.target
}

// Step performs rate actions a second over elapsed (fractions carry over
// to the next step) as random players of players, each turn's reads and
// changes one after another on the calling goroutine, which must be the
// main thread; Crowd runs the turns off it.
func (g *Generator) Step(svc *market.Service, players []market.Player, rate float64, elapsed time.Duration) Result {
	var r Result
	if len(players) < MinPlayers {
		return r
	}
	for range g.due(rate, elapsed) {
		g.turnNow(svc, players, &r)
	}
	return r
}

// due is how many turns rate a second make over elapsed, the fraction
// left carried over to the next call.
func (g *Generator) due(rate float64, elapsed time.Duration) int {
	g.carry += rate * elapsed.Seconds()
	n := int(g.carry)
	g.carry -= float64(n)
	return n
}

// One performs one turn as a random player of players and returns its
// refusal, if it was refused. Main thread only.
func (g *Generator) One(svc *market.Service, players []market.Player) error {
	var r Result
	g.turnNow(svc, players, &r)
	if r.Refused > 0 {
		return r.LastErr
	}
	return nil
}

// turnNow is a turn whose changes are made at once.
func (g *Generator) turnNow(svc *market.Service, players []market.Player, r *Result) {
	g.turn(g.newBot(svc, r, func(change func() error) error { return change() }, nil), players)
}
