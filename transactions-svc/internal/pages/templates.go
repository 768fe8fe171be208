package pages

import "html/template"

// page is what a hosted page shows.
type page struct {
	Status  int
	Title   string
	Heading string
	Message string
	// Kind selects the body: pay, payout or notice.
	Kind        string
	Amount      string
	Description string
	Recipient   string
	Action      string
	CSRF        string
	Errors      map[string]string
	// Values refills non-sensitive fields after a refused post (names, the
	// destination type); card and account numbers are never echoed.
	Values  map[string]string
	Notice  string
	Sandbox bool
	// Payee is the tenant's display name, shown on every page of a link
	// whose signature was verified; empty while it is not known.
	Payee string
	// Receipt is shown on pages without a form (paid, processing, ...).
	Receipt *receipt
}

// newTemplates parses the pages: server-rendered HTML that works without
// JavaScript, with labelled fields and a layout that fits a phone screen.
func newTemplates() *template.Template {
	return template.Must(template.New("page").Parse(layout + payForm + payoutForm))
}

const layout = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>{{.Title}}{{if .Payee}} · {{.Payee}}{{end}}</title>
<style>
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f4f5f7;color:#1a1d21}
main{max-width:28rem;margin:0 auto;padding:1.25rem}
.card{background:#fff;border-radius:12px;padding:1.25rem;box-shadow:0 1px 3px rgba(0,0,0,.12)}
h1{font-size:1.35rem;margin:0 0 .5rem}
.amount{font-size:2rem;font-weight:700;margin:.25rem 0}
.muted{color:#5b6470}
label{display:block;font-weight:600;margin:.9rem 0 .3rem}
input[type=text],input[type=tel]{width:100%;padding:.7rem;font-size:1rem;border:1px solid #8a929c;border-radius:8px}
input:focus{outline:3px solid #2463eb;outline-offset:1px}
.row{display:flex;gap:.75rem}.row>div{flex:1}
fieldset{border:1px solid #d3d7dc;border-radius:8px;margin:1rem 0 0;padding:.25rem .9rem .9rem}
legend{font-weight:600;padding:0 .3rem}
.choice{display:flex;align-items:center;gap:.5rem;font-weight:400;margin:.5rem 0}
.error{color:#b00020;font-size:.9rem;margin:.25rem 0 0}
.notice{background:#fff4e5;border-left:4px solid #b25e00;padding:.6rem .8rem;margin:.8rem 0}
button{width:100%;margin-top:1.25rem;padding:.85rem;font-size:1.05rem;font-weight:600;color:#fff;background:#2463eb;border:0;border-radius:8px}
.sandbox{font-size:.85rem;margin-top:1rem}
.payee{font-weight:600;font-size:1.05rem;margin:0 0 .75rem;overflow-wrap:anywhere}
.receipt{display:grid;grid-template-columns:auto 1fr;gap:.35rem 1rem;margin:1rem 0 0;padding:.9rem 0 0;border-top:1px solid #d3d7dc}
.receipt dt{color:#5b6470}.receipt dd{margin:0;font-weight:600;overflow-wrap:anywhere}
form:has(#destination_type_card:checked) .dest-bank_account,form:has(#destination_type_bank:checked) .dest-debit_card{display:none}
</style>
</head>
<body>
<main>
{{if .Payee}}<p class="payee" id="payee">{{.Payee}}</p>{{end}}
<div class="card">
<h1>{{.Heading}}</h1>
{{if .Amount}}<p class="amount">{{.Amount}}</p>{{end}}
{{if .Description}}<p class="muted">{{.Description}}</p>{{end}}
{{if .Notice}}<p class="notice" role="alert">{{.Notice}}</p>{{end}}
{{if .Message}}<p>{{.Message}}</p>{{end}}
{{if eq .Kind "pay"}}{{template "pay" .}}{{end}}
{{if eq .Kind "payout"}}{{template "payout" .}}{{end}}
{{with .Receipt}}<dl class="receipt" id="receipt">
<dt>Reference</dt><dd id="receipt-reference">{{.Reference}}</dd>
{{if .Date}}<dt>Date</dt><dd><time datetime="{{.DateTime}}">{{.Date}}</time></dd>{{end}}
{{if .Method}}<dt>{{.MethodLabel}}</dt><dd id="receipt-method">{{.Method}}</dd>{{end}}
</dl>{{end}}
</div>
</main>
</body>
</html>
`

const payForm = `
{{define "pay"}}
<form method="post" action="{{.Action}}" novalidate>
<input type="hidden" name="_csrf" value="{{.CSRF}}">
<label for="cardholder_name">Name on card</label>
<input type="text" id="cardholder_name" name="cardholder_name" autocomplete="cc-name" required value="{{index .Values "cardholder_name"}}"{{if index .Errors "cardholder_name"}} aria-invalid="true" aria-describedby="cardholder_name-error"{{end}}>
{{with index .Errors "cardholder_name"}}<p class="error" id="cardholder_name-error">{{.}}</p>{{end}}
<label for="card_number">Card number</label>
<input type="text" id="card_number" name="card_number" inputmode="numeric" autocomplete="cc-number" required{{if index .Errors "card_number"}} aria-invalid="true" aria-describedby="card_number-error"{{end}}>
{{with index .Errors "card_number"}}<p class="error" id="card_number-error">{{.}}</p>{{end}}
<div class="row">
<div>
<label for="exp_month">Expiry month</label>
<input type="text" id="exp_month" name="exp_month" inputmode="numeric" autocomplete="cc-exp-month" placeholder="MM" required{{if index .Errors "exp_month"}} aria-invalid="true" aria-describedby="exp_month-error"{{end}}>
{{with index .Errors "exp_month"}}<p class="error" id="exp_month-error">{{.}}</p>{{end}}
</div>
<div>
<label for="exp_year">Expiry year</label>
<input type="text" id="exp_year" name="exp_year" inputmode="numeric" autocomplete="cc-exp-year" placeholder="YYYY" required{{if index .Errors "exp_year"}} aria-invalid="true" aria-describedby="exp_year-error"{{end}}>
{{with index .Errors "exp_year"}}<p class="error" id="exp_year-error">{{.}}</p>{{end}}
</div>
</div>
<label for="cvc">Security code (CVC)</label>
<input type="text" id="cvc" name="cvc" inputmode="numeric" autocomplete="cc-csc" required{{if index .Errors "cvc"}} aria-invalid="true" aria-describedby="cvc-error"{{end}}>
{{with index .Errors "cvc"}}<p class="error" id="cvc-error">{{.}}</p>{{end}}
<button type="submit">Pay {{.Amount}}</button>
</form>
{{if .Sandbox}}<p class="sandbox muted">Sandbox: 4242 4242 4242 4242 pays, 4000 0000 0000 0002 is declined, 4000 0000 0000 0119 fails at the processor. No money moves.</p>{{end}}
{{end}}
`

// payoutForm shows the fields of the chosen destination only: a CSS rule
// on the checked radio hides the other kind's fieldset, so the choice works
// without JavaScript. A browser without :has shows both fieldsets, and the
// server reads only the chosen kind's fields either way.
const payoutForm = `
{{define "payout"}}
<form method="post" action="{{.Action}}" novalidate>
<input type="hidden" name="_csrf" value="{{.CSRF}}">
<fieldset{{if index .Errors "destination_type"}} aria-describedby="destination_type-error"{{end}}>
<legend>Where should we send the money?</legend>
<label class="choice" for="destination_type_bank"><input type="radio" id="destination_type_bank" name="destination_type" value="bank_account"{{if ne (index .Values "destination_type") "debit_card"}} checked{{end}}> Bank account</label>
<label class="choice" for="destination_type_card"><input type="radio" id="destination_type_card" name="destination_type" value="debit_card"{{if eq (index .Values "destination_type") "debit_card"}} checked{{end}}> Debit card</label>
{{with index .Errors "destination_type"}}<p class="error" id="destination_type-error">{{.}}</p>{{end}}
</fieldset>
<label for="account_holder_name">Account holder name</label>
<input type="text" id="account_holder_name" name="account_holder_name" autocomplete="name" required value="{{index .Values "account_holder_name"}}"{{if index .Errors "account_holder_name"}} aria-invalid="true" aria-describedby="account_holder_name-error"{{end}}>
{{with index .Errors "account_holder_name"}}<p class="error" id="account_holder_name-error">{{.}}</p>{{end}}
<fieldset class="dest-bank_account">
<legend>Bank account</legend>
<label for="routing_number">Routing number</label>
<input type="text" id="routing_number" name="routing_number" inputmode="numeric" autocomplete="off"{{if index .Errors "routing_number"}} aria-invalid="true" aria-describedby="routing_number-error"{{end}}>
{{with index .Errors "routing_number"}}<p class="error" id="routing_number-error">{{.}}</p>{{end}}
<label for="account_number">Account number</label>
<input type="text" id="account_number" name="account_number" inputmode="numeric" autocomplete="off"{{if index .Errors "account_number"}} aria-invalid="true" aria-describedby="account_number-error"{{end}}>
{{with index .Errors "account_number"}}<p class="error" id="account_number-error">{{.}}</p>{{end}}
</fieldset>
<fieldset class="dest-debit_card">
<legend>Debit card</legend>
<label for="card_number">Card number</label>
<input type="text" id="card_number" name="card_number" inputmode="numeric" autocomplete="cc-number"{{if index .Errors "card_number"}} aria-invalid="true" aria-describedby="card_number-error"{{end}}>
{{with index .Errors "card_number"}}<p class="error" id="card_number-error">{{.}}</p>{{end}}
</fieldset>
<button type="submit">Receive {{.Amount}}</button>
</form>
{{if .Sandbox}}<p class="sandbox muted">Sandbox: a number ending 0000 fails the identity check; ending 1111 fails the first disbursement. No money moves.</p>{{end}}
{{end}}
`
