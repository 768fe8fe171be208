package httpapi

import "html/template"

// landingPage is the server-rendered opt-in form behind a code's QR code.
// It works without JavaScript; every input has a visible label, errors are
// announced (role=alert) and tied to their input (aria-describedby).
var landingPage = template.Must(template.New("landing").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{if .TenantName}}{{.TenantName}}: {{end}}Text message sign-up</title>
<style>
body{font-family:system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#111}
label{display:block;font-weight:600;margin-top:1rem}
input[type=tel]{font-size:1.1rem;padding:.5rem;width:100%;box-sizing:border-box}
.check{display:flex;gap:.5rem;align-items:flex-start;margin-top:1rem}
.check label{font-weight:400;margin:0}
.error{color:#a00000;font-weight:600}
button{margin-top:1.5rem;font-size:1.1rem;padding:.6rem 1.2rem}
</style>
</head>
<body>
<main>
<h1>{{if .TenantName}}{{.TenantName}}: {{end}}get our text messages</h1>
{{if .Done}}
<p role="status">{{.Done}}</p>
{{else}}
{{if .Errors}}<div role="alert"><p class="error">Please correct the following:</p><ul>{{range .Errors}}<li>{{.}}</li>{{end}}</ul></div>{{end}}
<form method="post" action="{{.Action}}" novalidate>
<input type="hidden" name="_csrf" value="{{.CSRF}}">
<label for="phone">Mobile phone number</label>
<p id="phone-help">Include your country code if you are outside {{.Region}}.</p>
{{if .PhoneError}}<p id="phone-error" class="error">{{.PhoneError}}</p>{{end}}
<input id="phone" name="phone" type="tel" autocomplete="tel" inputmode="tel" required value="{{.Phone}}"
 aria-describedby="phone-help{{if .PhoneError}} phone-error{{end}}"{{if .PhoneError}} aria-invalid="true"{{end}}>
{{if .ConsentError}}<p id="consent-error" class="error">{{.ConsentError}}</p>{{end}}
<div class="check">
<input id="consent" name="consent" type="checkbox" value="yes" required{{if .ConsentError}} aria-invalid="true" aria-describedby="consent-error"{{end}}>
<label for="consent">I agree to receive text messages {{if .TenantName}}from {{.TenantName}}{{end}} at this number.
Message and data rates may apply. Reply STOP to opt out, HELP for help.</label>
</div>
{{if .DoubleOptIn}}<p>We will text you once to confirm: reply YES.</p>{{end}}
<button type="submit">Sign up</button>
</form>
{{end}}
</main>
</body>
</html>
`))

// landingView is what landingPage shows.
type landingView struct {
	TenantName   string
	Action       string
	CSRF         string
	Region       string
	Phone        string
	PhoneError   string
	ConsentError string
	Errors       []string
	DoubleOptIn  bool
	// Done replaces the form with the outcome.
	Done string
}

// messagePage is a plain page for refusals (unknown code, bad form token).
var messagePage = template.Must(template.New("message").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
</head>
<body>
<main>
<h1>{{.Title}}</h1>
<p>{{.Text}}</p>
</main>
</body>
</html>
`))
