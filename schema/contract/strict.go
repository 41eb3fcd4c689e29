package contract

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// DuplicateKey reports the first object key that appears twice in the
// same JSON object of data, at any depth, as a *[ValidationError] whose
// Pointer is the object holding it and whose Msg names the key; Contract
// is contract. It returns nil when no key repeats or when data is not
// well-formed JSON (the decoder that reads data says why). A repeated key
// is never read: which copy a reader keeps differs from reader to reader
// (Go's and Python's decoders keep the last), so a file that carries two
// values for one field says two things, and a grader must believe
// neither.
func DuplicateKey(contract string, data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var path []string
	err := dupValue(dec, &path)
	var ve *ValidationError
	if errors.As(err, &ve) {
		ve.Contract = contract
		return ve
	}
	return nil
}

// dupValue reads one JSON value from dec; path is the pointer tokens of
// the value being read.
func dupValue(dec *json.Decoder, path *[]string) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	switch d {
	case '{':
		seen := map[string]bool{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return err
			}
			k, ok := kt.(string)
			if !ok {
				return io.ErrUnexpectedEOF
			}
			if seen[k] {
				return &ValidationError{Pointer: pointer(*path),
					Msg: fmt.Sprintf("key %s appears more than once in this object; a field with two values is refused, not read", strconv.Quote(k))}
			}
			seen[k] = true
			*path = append(*path, k)
			if err := dupValue(dec, path); err != nil {
				return err
			}
			*path = (*path)[:len(*path)-1]
		}
	case '[':
		for i := 0; dec.More(); i++ {
			*path = append(*path, strconv.Itoa(i))
			if err := dupValue(dec, path); err != nil {
				return err
			}
			*path = (*path)[:len(*path)-1]
		}
	}
	_, err = dec.Token() // the closing delimiter
	return err
}

// DecodeStrict decodes data as one JSON value with numbers kept as
// json.Number, refusing a repeated object key at any depth (see
// [DuplicateKey]) and anything after the value. Every error is a
// *[ValidationError] for contract: at the repeated key's object, or at the
// root for data that is not JSON.
func DecodeStrict(contract string, data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, &ValidationError{Contract: contract, Msg: "not JSON: " + err.Error()}
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &ValidationError{Contract: contract, Msg: "not JSON: unexpected data after the JSON value"}
	}
	if err := DuplicateKey(contract, data); err != nil {
		return nil, err
	}
	return v, nil
}
