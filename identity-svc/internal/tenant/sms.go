package tenant

// ValidSMSNumber reports whether s is an SMS sender number in E.164 form,
// the form in which tenants store it.
func ValidSMSNumber(s string) bool { return e164.MatchString(s) }
