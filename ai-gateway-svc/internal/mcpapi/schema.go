package mcpapi

import "github.com/modelcontextprotocol/go-sdk/mcp"

// object is the input schema of a tool: the properties, the required ones,
// nothing else accepted.
func object(required []string, props map[string]any) map[string]any {
	s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

func str(description string, extra ...any) map[string]any {
	s := map[string]any{"type": "string", "description": description}
	for i := 0; i+1 < len(extra); i += 2 {
		s[extra[i].(string)] = extra[i+1]
	}
	return s
}

// idempotencyKey is the argument that makes a retried write safe.
func idempotencyKey() map[string]any {
	return str("A key of your choosing (at most 128 characters) for this one operation. Send the same key "+
		"with the same arguments when you retry after an error or a timeout: the operation then happens once and the "+
		"first answer is returned again. The same key with other arguments is refused (idempotency_conflict).",
		"maxLength", 128)
}

// hint is an optional tool annotation's value.
func hint(b bool) *bool { return &b }

func resolveContactTool() *mcp.Tool {
	return &mcp.Tool{
		Name:  "resolve_contact",
		Title: "Find a contact",
		Description: "Find who the user means among the tenant's contacts, by name, optionally narrowed by phone or " +
			"email (exact matches). Answers status matched (one contact: use candidates[0].contact_id), ambiguous " +
			"(several: ask the user which one, showing names and phone_last4) or not_found (offer create_contact), " +
			"and the candidates best first with a name similarity score. Reads only; needs api:view-any-contact.",
		InputSchema: object([]string{"name"}, map[string]any{
			"name":  str("The person's name as the user gave it, e.g. \"Ada Lovelace\".", "minLength", 1, "maxLength", 201),
			"phone": str("Optional phone number; narrows to the contact with exactly this number.", "maxLength", 64),
			"email": str("Optional email address; narrows to the contact with exactly this email.", "maxLength", 254),
		}),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: hint(false)},
	}
}

func createContactTool() *mcp.Tool {
	return &mcp.Tool{
		Name:  "create_contact",
		Title: "Create a contact",
		Description: "Create a contact when resolve_contact found nobody. The phone is required (E.164 such as " +
			"+14155550123, or a national number of the tenant's region) and must not belong to another contact " +
			"(validation_failed on phone). Sends nothing. Needs api:create-contact. Returns the contact; use its id " +
			"as contact_id of prepare_transaction.",
		InputSchema: object([]string{"phone"}, map[string]any{
			"first_name":      str("First name.", "maxLength", 100),
			"last_name":       str("Last name.", "maxLength", 100),
			"phone":           str("Mobile phone number that receives the SMS."),
			"email":           str("Optional email address."),
			"idempotency_key": idempotencyKey(),
		}),
		Annotations: &mcp.ToolAnnotations{DestructiveHint: hint(false), OpenWorldHint: hint(false)},
	}
}

func prepareTransactionTool() *mcp.Tool {
	return &mcp.Tool{
		Name:  "prepare_transaction",
		Title: "Prepare a payment (nothing is sent)",
		Description: "Prepare a draft to charge a contact (direction receivable: they get a payment link) or pay " +
			"them out (direction payable: they get a link to choose where to receive the money). Nothing is sent " +
			"and no money moves: the answer is a draft with a preview (recipient name, phone_last4, the formatted " +
			"amount, the SMS text) to show the user before confirm_transaction. amount is an integer in minor units " +
			"of the currency: 1250 is $12.50. Unconfirmed drafts expire after 24 hours. Needs api:create-receivable " +
			"or api:create-payable. The tenant may cap amounts: above its per-transaction or daily limit the call " +
			"fails with ai_limit_exceeded naming the limit (error.details.limit); do not split the amount to get " +
			"around it, tell the user.",
		InputSchema: object([]string{"direction", "contact_id", "amount"}, map[string]any{
			"direction":  map[string]any{"type": "string", "enum": []string{"receivable", "payable"}, "description": "receivable to collect money from the contact, payable to pay money to them."},
			"contact_id": str("The contact's id (from resolve_contact or create_contact)."),
			"amount": map[string]any{"type": "integer", "minimum": 1, "maximum": 99999999,
				"description": "The amount in minor units of the currency (cents for USD): 1250 is $12.50."},
			"currency":        str("ISO 4217 code such as USD; the tenant's default currency when absent.", "pattern", "^[A-Z]{3}$"),
			"description":     str("What it is for, shown in the SMS (e.g. \"Invoice 42\").", "maxLength", 500),
			"send_at":         str("Optional RFC 3339 time in the future: confirm then schedules the SMS for that time.", "format", "date-time"),
			"idempotency_key": idempotencyKey(),
		}),
		Annotations: &mcp.ToolAnnotations{DestructiveHint: hint(false), OpenWorldHint: hint(false)},
	}
}

func confirmTransactionTool() *mcp.Tool {
	return &mcp.Tool{
		Name:  "confirm_transaction",
		Title: "Confirm a prepared payment (sends the SMS)",
		Description: "Confirm a draft from prepare_transaction, once the user has approved its preview: this sends " +
			"the contact the SMS with their link at once (status pending), or schedules it (status scheduled) when " +
			"send_at is given or was given to prepare. It cannot be undone by calling again; a second confirm of the " +
			"same transaction fails with invalid_transition, and the tenant's daily limit is checked again " +
			"(ai_limit_exceeded). Always pass an idempotency_key and reuse it if you retry. Needs the create " +
			"ability of the transaction's direction.",
		InputSchema: object([]string{"transaction_id"}, map[string]any{
			"transaction_id":  str("The transaction_id prepare_transaction returned."),
			"send_at":         str("Optional RFC 3339 time in the future to schedule the SMS instead of sending it now.", "format", "date-time"),
			"idempotency_key": idempotencyKey(),
		}),
		Annotations: &mcp.ToolAnnotations{DestructiveHint: hint(true), OpenWorldHint: hint(true)},
	}
}

func transactionStatusTool() *mcp.Tool {
	return &mcp.Tool{
		Name:  "transaction_status",
		Title: "Follow a payment",
		Description: "Read where a transaction stands: its status (draft, scheduled, pending, paid, disbursed, " +
			"failed, cancelled, expired, ...), amount in minor units, currency, and the latest SMS (status queued, " +
			"sent, delivered, failed or suppressed, or null before any). reference is a transaction, receivable or " +
			"payable id. Reads only; needs the view ability of the transaction's direction.",
		InputSchema: object([]string{"reference"}, map[string]any{
			"reference": str("A transaction_id, receivable_id or payable_id."),
		}),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: hint(false)},
	}
}
