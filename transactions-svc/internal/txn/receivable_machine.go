package txn

// ReceivableMachine is the receivable state machine of contract section 6.
// A declined card is processing -> pending (the attempt recorded); after 5
// declines the use case also revokes the link. Resend, revoke-link and
// verify-payer act only in pending and keep the state; PUT acts in draft,
// scheduled and pending; DELETE (soft, the state is kept) in draft,
// cancelled and expired. Cancel once paid is 409 already_paid.
func ReceivableMachine() Machine {
	return newMachine([]Transition{
		{Draft, Confirm, Pending},
		{Draft, ConfirmScheduled, Scheduled},
		{Draft, Cancel, Cancelled},
		{Draft, DraftTimeout, Expired},
		{Draft, Update, Same},
		{Draft, Delete, Deleted},

		{Scheduled, SendDue, Pending},
		{Scheduled, Cancel, Cancelled},
		{Scheduled, Expire, Expired},
		{Scheduled, LinkExpired, Expired},
		{Scheduled, Update, Same},

		{Pending, SubmitCard, Processing},
		{Pending, MarkPaid, Paid},
		{Pending, Cancel, Cancelled},
		{Pending, Expire, Expired},
		{Pending, LinkExpired, Expired},
		{Pending, Resend, Pending},
		{Pending, RevokeLink, Pending},
		{Pending, VerifyPayer, Pending},
		{Pending, Update, Same},

		{Processing, RailPaid, Paid},
		{Processing, RailDeclined, Pending},
		{Processing, RailError, Failed},

		{Failed, RetryPayment, Processing},
		{Failed, MarkPaid, Paid},
		{Failed, Cancel, Cancelled},

		{Cancelled, Delete, Deleted},
		{Expired, Delete, Deleted},
	}, map[edge]error{
		{Paid, Cancel}: ErrAlreadyPaid,
	})
}
