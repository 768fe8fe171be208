package wire

// Transition is one change of an item's status; from is null for its
// creation.
type Transition struct {
	From *string `json:"from"`
	To   string  `json:"to"`
	At   string  `json:"at"`
}

// Message is an SMS asked for an item and its state (status null until
// optin-svc reports one). Neither number nor text.
type Message struct {
	ID          string  `json:"id"`
	Kind        string  `json:"kind"`
	Status      *string `json:"status"`
	RequestedAt string  `json:"requested_at"`
	SentAt      *string `json:"sent_at"`
	UpdatedAt   *string `json:"updated_at"`
}

// Activity is the answer of the internal activity route.
type Activity struct {
	Transitions []Transition `json:"transitions"`
	Messages    []Message    `json:"messages"`
}

// StatusSum is a row of the internal summary route: the count and amount
// sum (minor units) of one status and currency.
type StatusSum struct {
	Status   string `json:"status"`
	Currency string `json:"currency"`
	Count    int    `json:"count"`
	Amount   int64  `json:"amount"`
}
