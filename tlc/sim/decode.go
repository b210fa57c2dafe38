package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/modelfuzz/modelfuzz/internal/jsonerr"
)

// DecodeRequest reads a request as a user writes it (modelfuzz tlc
// simulate): an array of actions or a request object, strictly (unknown
// fields are errors; numbers kept exact).
func DecodeRequest(data []byte) (*Request, error) {
	data = bytes.TrimSpace(data)
	req := &Request{}
	var err error
	if len(data) > 0 && data[0] == '[' {
		err = strictJSON(data, &req.Actions)
	} else {
		err = strictJSON(data, req)
	}
	if err != nil {
		return nil, err
	}
	for i, a := range req.Actions {
		if a.Name == "" {
			return nil, fmt.Errorf("action %d has no \"name\"", i)
		}
	}
	return req, nil
}

func strictJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("invalid JSON: %s", jsonerr.Describe(data, err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("invalid JSON: trailing data")
	}
	return nil
}
