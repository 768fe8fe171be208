package web

// The abilities the pages check, named as libs/authz names them: a page
// asks for the ability the API route behind it needs, and the peer checks
// it again with the user's internal token.
const (
	abilityViewContacts      = "api:view-any-contact"
	abilityViewContact       = "api:view-contact"
	abilityViewOptInCodes    = "api:view-any-opt-in-code"
	abilityCreateOptInCodes  = "api:create-opt-in-code"
	abilityViewSuppression   = "api:view-any-suppression"
	abilityCreateSuppression = "api:create-suppression"
	abilityDeleteSuppression = "api:delete-suppression"
	abilityViewReceivables   = "api:view-any-receivable"
	abilityViewPayables      = "api:view-any-payable"
	abilityManageTokens      = "dashboard:manage-tokens"
	abilityManageUsers       = "dashboard:manage-users"
	abilityViewReceivable    = "api:view-receivable"
	abilityViewPayable       = "api:view-payable"
	abilityDeleteReceivable  = "api:delete-receivable"
	abilityDeletePayable     = "api:delete-payable"
	abilityResend            = "api:resend-transaction"
	abilityUpdateTxn         = "api:update-transaction"
	abilityViewWebhooks      = "api:view-any-webhook"
	abilityViewWebhook       = "api:view-webhook"
	abilityCreateWebhooks    = "api:create-webhook"
	abilityUpdateWebhook     = "api:update-webhook"
)
