package store_test

import (
	"testing"

	"github.com/paylane/paylane/libs/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }
