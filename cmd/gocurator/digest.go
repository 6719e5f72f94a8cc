package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// envDigestFile names a file holding the digest credentials; the
// --digest-file flag overrides it.
const envDigestFile = "GOCURATOR_DIGEST_FILE"

// maxDigest bounds what is read for the digest credentials: a file that
// goes on (/dev/zero, a log) is a mistake, not a password.
const maxDigest = 4096

// digestCredentials returns "user:password" from $GOCURATOR_DIGEST or from
// file ("-": the first line of stdin, whose rest is left unread for the
// command), or "" for none. Given both ways, or in a form without a user,
// it is an error (bad usage).
func digestCredentials(getenv func(string) string, file string, stdin io.Reader) (string, error) {
	d := getenv(envDigest)
	switch {
	case file != "" && d != "":
		return "", fmt.Errorf("give the digest one way: $%s or --digest-file ($%s), not both", envDigest, envDigestFile)
	case file == "-":
		line, err := readLine(stdin)
		if err != nil {
			return "", fmt.Errorf("--digest-file -: reading standard input: %w", err)
		}
		d = line
	case file != "":
		f, err := os.Open(file)
		if err != nil {
			return "", fmt.Errorf("--digest-file: %w", err)
		}
		data, err := io.ReadAll(io.LimitReader(f, maxDigest+1))
		f.Close()
		if err != nil {
			return "", fmt.Errorf("--digest-file: %w", err)
		}
		if len(data) > maxDigest {
			return "", fmt.Errorf("--digest-file %s: more than %d bytes: want one line, user:password", file, maxDigest)
		}
		d = strings.TrimSuffix(strings.TrimSuffix(string(data), "\n"), "\r")
		if strings.ContainsAny(d, "\r\n") {
			return "", fmt.Errorf("--digest-file %s: more than one line: want one line, user:password", file)
		}
	}
	if d == "" {
		return "", nil
	}
	if user, _, ok := strings.Cut(d, ":"); !ok || user == "" {
		if file != "" {
			return "", fmt.Errorf("--digest-file %s must hold user:password", file)
		}
		return "", fmt.Errorf("$%s must be user:password", envDigest)
	}
	return d, nil
}

// readLine reads up to the first newline, a byte at a time so that what
// follows stays unread, and returns it without the line ending.
func readLine(r io.Reader) (string, error) {
	if r == nil {
		return "", errors.New("no standard input")
	}
	var line bytes.Buffer
	var b [1]byte
	for line.Len() <= maxDigest {
		n, err := r.Read(b[:])
		if n == 1 {
			if b[0] == '\n' {
				return strings.TrimSuffix(line.String(), "\r"), nil
			}
			line.WriteByte(b[0])
			continue
		}
		if err == io.EOF {
			return strings.TrimSuffix(line.String(), "\r"), nil
		}
		if err != nil {
			return "", err
		}
	}
	return "", fmt.Errorf("a first line of more than %d bytes: want user:password", maxDigest)
}
