// Command contacts-svc serves contacts, phone records and contact field
// definitions. Configuration comes from the environment (see the module's
// README); `contacts-svc migrate` applies the database migrations and exits.
package main

import (
	contactssvc "github.com/paylane/paylane/contacts-svc"
	"github.com/paylane/paylane/libs/svcrun"
)

func main() { svcrun.Main("contacts-svc", contactssvc.ConfigFromEnv, contactssvc.Run) }
