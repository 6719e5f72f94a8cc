package main

import "testing"

// A member node made again under its own name is one node; made under a
// second name (a lost protected create made twice, or a re-creation that
// took a new sequence number) it is a violation.
func TestCheckMembers(t *testing.T) {
	const members, services = "/chaos/members", "/chaos/services"
	create := func(path, data string) txn {
		return txn{Type: txnCreate, ops: []txnOp{{Type: txnCreate, Path: path, Data: []byte(data), Ephemeral: true}}}
	}
	clean := []txn{
		create(members+"/_c_a-w1-0000000001", "w1.1"),
		create(services+"/workers/w1", "{}"),
		create(members+"/_c_a-w1-0000000001", "w1.1"), // made again after an expiry: the same name
		create(members+"/_c_b-w1-0000000007", "w1.2"), // the next incarnation: its own node
	}
	v := newTally()
	c := checkMembers(clean, members, services, v)
	if len(v.counts) != 0 || c.nodes != 2 || c.creates != 3 || c.instanceCreates != 1 {
		t.Fatalf("clean history: violations %v, counts %+v", v.counts, c)
	}
	twice := append(clean, create(members+"/_c_a-w1-0000000009", "w1.1"))
	v = newTally()
	checkMembers(twice, members, services, v)
	if v.counts[vMemberDuplicate] != 1 {
		t.Fatalf("a second name for w1.1: violations %v", v.counts)
	}
	v = newTally()
	if c := checkMembers(twice, "", "", v); len(v.counts) != 0 || c.creates != 0 {
		t.Fatalf("no members path: violations %v, counts %+v; want nothing checked", v.counts, c)
	}
}
