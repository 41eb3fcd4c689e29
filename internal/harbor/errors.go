package harbor

import (
	"errors"

	"github.com/pelletier/go-toml/v2"
)

// asDecodeError is errors.As for go-toml's decode error.
func asDecodeError(err error, target **toml.DecodeError) bool { return errors.As(err, target) }
