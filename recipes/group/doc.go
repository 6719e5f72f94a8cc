// Package group is group membership: Curator's GroupMember. A Member joins
// a group under an id, with data, and keeps a view of every member; Java
// and Go members of one group see each other.
//
// A member is an ephemeral node membershipPath/id holding the member's
// data, kept in place by a node.Node (made again after a lost session or a
// deletion), and the group's view is a cache of membershipPath's children
// (a cache.Cache of depth 1): id → data, with Joined, Changed and Left
// events as members come and go. See docs/recipes/group.md.
package group
