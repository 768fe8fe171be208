package txn

// PayableMachine is the payable state machine of contract section 6. The
// hosted page's destination selection runs the identity check at once
// (verify_identity or identity_failed); a verified payable starts its
// disbursement (disburse). Cancel is allowed only before a destination is
// selected. revoke-link acts in pending and destination_selected (which it
// returns to pending, the destination cleared); resend only in pending.
func PayableMachine() Machine {
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

		{Pending, SelectDestination, DestinationSelected},
		{Pending, MarkDisbursed, Disbursed},
		{Pending, Cancel, Cancelled},
		{Pending, Expire, Expired},
		{Pending, LinkExpired, Expired},
		{Pending, Resend, Pending},
		{Pending, RevokeLink, Pending},
		{Pending, Update, Same},

		{DestinationSelected, VerifyIdentity, Verified},
		{DestinationSelected, IdentityFailed, DestinationSelected},
		{DestinationSelected, MarkDisbursed, Disbursed},
		{DestinationSelected, RevokeLink, Pending},

		{Verified, Disburse, Processing},

		{Processing, RailDisbursed, Disbursed},
		{Processing, RailFailed, Failed},

		{Failed, RetryDisbursement, Processing},
		{Failed, MarkDisbursed, Disbursed},

		{Cancelled, Delete, Deleted},
		{Expired, Delete, Deleted},
	}, nil)
}
