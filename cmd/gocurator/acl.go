package main

import (
	"fmt"

	"github.com/gocurator/curator/framework"
)

// envACL names the ACL of the nodes gocurator creates (see aclModes); the
// --acl flag overrides it.
const envACL = "GOCURATOR_ACL"

// The ACL modes of --acl.
const (
	// aclOpen lets anyone do anything (ZooKeeper's OPEN_ACL_UNSAFE,
	// Curator's default). The default without credentials.
	aclOpen = "open"
	// aclCreator lets the identity of $GOCURATOR_DIGEST do everything and
	// anyone read (CREATOR_ALL_ACL and READ_ACL_UNSAFE). The default with
	// credentials.
	aclCreator = "creator"
	// aclCreatorOnly lets the identity do everything and nobody else
	// anything, not even list the lock (CREATOR_ALL_ACL).
	aclCreatorOnly = "creator-only"
)

// aclProvider returns the ACL provider of mode ("" for the default, which
// depends on whether the client authenticates).
func aclProvider(mode string, authenticated bool) (framework.ACLProvider, error) {
	if mode == "" {
		mode = aclOpen
		if authenticated {
			mode = aclCreator
		}
	}
	switch mode {
	case aclOpen:
		return framework.OpenACLProvider{}, nil
	case aclCreator, aclCreatorOnly:
		if !authenticated {
			return nil, fmt.Errorf("--acl %s needs credentials ($%s or --digest-file): the creator is the identity they name", mode, envDigest)
		}
		return creatorACL{othersRead: mode == aclCreator}, nil
	}
	return nil, fmt.Errorf("--acl %q: want %s, %s or %s", mode, aclOpen, aclCreator, aclCreatorOnly)
}

// creatorACL gives every node gocurator creates (the lock's or election's
// nodes, the containers it makes for them, the namespace's root) to the
// identity it authenticated as, and, with othersRead, lets anyone read it.
type creatorACL struct{ othersRead bool }

// DefaultACL returns the creator's ACL.
func (p creatorACL) DefaultACL() []framework.ACL {
	acl := framework.AuthACL(framework.PermAll)
	if p.othersRead {
		acl = append(acl, framework.WorldACL(framework.PermRead)...)
	}
	return acl
}

// ACLForPath returns nil: every node gets DefaultACL.
func (creatorACL) ACLForPath(string) []framework.ACL { return nil }
