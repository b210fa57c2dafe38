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
	req := &Request{}
	var err error
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '[' {
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

// strictJSON decodes data into v; its errors are *jsonerr.Error (line and
// column in data).
func strictJSON(data []byte, v any) error {
	if e := jsonerr.Check(data); e != nil {
		return e
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return jsonerr.Describe(data, err)
	}
	end := dec.InputOffset()
	if _, err := dec.Token(); err != io.EOF {
		return jsonerr.At(data, end, "trailing data after the document")
	}
	return nil
}
