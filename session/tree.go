package session

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// The conversation tree. Every user message and every reply is a node; a
// node's children are the different continuations tried after it: an
// edited message is a sibling of the message it edits, a regenerated
// reply a sibling of the reply it replaces. The branch in use runs from a
// first message down to the current node; each node remembers which of
// its children was on the branch last, so that switching to a sibling
// comes back to where that branch was left. Nothing is ever deleted:
// rewinding moves the current node, and the next message starts a new
// branch beside the old one.
//
// Chat mode only: completion mode is one running text (Session.Send
// continues it), so it keeps a single branch and the tree stays empty.

// Roles of the tree's nodes.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// ErrNoBranching is returned by the tree operations in completion mode.
var ErrNoBranching = errors.New("a completion-mode conversation is one running text: it has no branches")

// Node is one message of the conversation tree.
type Node struct {
	ID      int    `json:"id"`
	Parent  int    `json:"parent"` // -1: a first message
	Role    string `json:"role"`   // RoleUser or RoleAssistant
	Content string `json:"content"`
	// Time is when the message was added.
	Time time.Time `json:"time,omitzero"`
	// Made says how a reply was made (nil for user messages, and for
	// replies of a file saved before the tree was kept).
	Made *Made `json:"made,omitempty"`
}

// Made is how one reply was made: the settings that chose its tokens and
// what the living features read while it was written. It is the reply's
// own record; the settings table and the living manifold are the
// session's and go on across branches (docs/architecture.md).
type Made struct {
	Stop        string  `json:"stop,omitempty"` // why it ended (Turn.Stop); "retrieved" when served from memory
	Tokens      int     `json:"tokens,omitempty"`
	Seed        uint64  `json:"seed"` // the seed the reply drew from (Turn.Seed; before Hardening III, the settings' seed)
	Temperature float32 `json:"temperature"`
	Rank        int     `json:"rank,omitempty"`
	Snipe       string  `json:"snipe,omitempty"`
	OGDAlpha    float64 `json:"ogd_alpha,omitempty"`
	KVKeep      float64 `json:"kv_keep,omitempty"`
	Draft       string  `json:"draft,omitempty"`
	// TEH and TEHPeak are the harm gauge over the reply and its peak, when
	// a geometry profile ran.
	TEH     *float32 `json:"teh,omitempty"`
	TEHPeak *float32 `json:"teh_peak,omitempty"`
	// Memory is the living manifold's decision for the turn ("" without
	// one): RETRIEVE, AUGMENT, EXPAND, EXPLORE.
	Memory string `json:"memory,omitempty"`
}

// Tree is a conversation's messages and its branches. The zero value is
// an empty tree. It is not safe for concurrent use.
type Tree struct {
	nodes []Node
	// last[i] is the child of node i on its branch last (-1: none yet);
	// rootLast is that for the first messages.
	last     []int
	rootLast int
	cur      int // the branch's last node (-1: the branch is empty)
}

// NewTree returns an empty tree.
func NewTree() *Tree { return &Tree{rootLast: -1, cur: -1} }

// Len is the number of nodes.
func (t *Tree) Len() int { return len(t.nodes) }

// Current is the id of the branch's last node (-1: empty).
func (t *Tree) Current() int { return t.cur }

// Node returns node id.
func (t *Tree) Node(id int) (Node, bool) {
	if id < 0 || id >= len(t.nodes) {
		return Node{}, false
	}
	return t.nodes[id], true
}

// Nodes is every node, in the order they were added (a node's id is its
// index).
func (t *Tree) Nodes() []Node { return slices.Clone(t.nodes) }

// Branch is the branch in use, from its first message to the current node.
func (t *Tree) Branch() []Node { return t.pathTo(t.cur) }

// pathTo is the path from a first message to id.
func (t *Tree) pathTo(id int) []Node {
	var path []Node
	for id >= 0 {
		path = append(path, t.nodes[id])
		id = t.nodes[id].Parent
	}
	slices.Reverse(path)
	return path
}

// Siblings are the ids of the nodes sharing id's parent (id among them),
// oldest first, and id's index among them.
func (t *Tree) Siblings(id int) (ids []int, index int) {
	if id < 0 || id >= len(t.nodes) {
		return nil, -1
	}
	parent := t.nodes[id].Parent
	for i := range t.nodes {
		if t.nodes[i].Parent == parent && t.nodes[i].Role == t.nodes[id].Role {
			if i == id {
				index = len(ids)
			}
			ids = append(ids, i)
		}
	}
	return ids, index
}

// Leaves is the number of branches: nodes no message follows.
func (t *Tree) Leaves() int { return len(t.leaves()) }

// leaves are the ids of the nodes no message follows, oldest first: one
// per branch.
func (t *Tree) leaves() []int {
	has := make([]bool, len(t.nodes))
	for _, n := range t.nodes {
		if n.Parent >= 0 {
			has[n.Parent] = true
		}
	}
	var ids []int
	for id, h := range has {
		if !h {
			ids = append(ids, id)
		}
	}
	return ids
}

// add appends a node under parent, puts it on the branch and makes it the
// current node.
func (t *Tree) add(parent int, role, content string, made *Made, now time.Time) int {
	id := len(t.nodes)
	t.nodes = append(t.nodes, Node{ID: id, Parent: parent, Role: role, Content: content, Time: now.UTC(), Made: made})
	t.last = append(t.last, -1)
	t.setLast(parent, id)
	t.cur = id
	return id
}

// setLast records child as parent's branch (-1: the first messages').
func (t *Tree) setLast(parent, child int) {
	if parent < 0 {
		t.rootLast = child
	} else {
		t.last[parent] = child
	}
}

// commit records a turn under the current node: the user's message and
// the reply. A message the same as one already sent at this point (a
// regeneration, a client resending its conversation) is that message: the
// reply becomes a sibling of its earlier replies.
func (t *Tree) commit(input, reply string, made *Made, now time.Time) {
	u := t.child(t.cur, RoleUser, input)
	if u < 0 {
		u = t.add(t.cur, RoleUser, input, nil, now)
	}
	t.add(u, RoleAssistant, reply, made, now)
}

// child is the id of parent's child with this role and content, the one
// on the branch if several (-1: none).
func (t *Tree) child(parent int, role, content string) int {
	found := -1
	for i := range t.nodes {
		n := &t.nodes[i]
		if n.Parent == parent && n.Role == role && n.Content == content {
			if found < 0 || t.onBranch(parent, i) {
				found = i
			}
		}
	}
	return found
}

// onBranch reports whether child is parent's branch.
func (t *Tree) onBranch(parent, child int) bool {
	if parent < 0 {
		return t.rootLast == child
	}
	return t.last[parent] == child
}

// follow makes the branch the messages msgs (user and assistant, in turn,
// the user's first), reusing the nodes that match and adding the rest as a
// new branch where they depart. It reports false, changing nothing, for
// messages that do not alternate so, or that end with the user's (a
// branch ends with a reply).
func (t *Tree) follow(msgs []Node, now time.Time) bool {
	if len(msgs)%2 == 1 {
		return false
	}
	for i, m := range msgs {
		want := RoleUser
		if i%2 == 1 {
			want = RoleAssistant
		}
		if m.Role != want {
			return false
		}
	}
	cur := -1
	for _, m := range msgs {
		id := t.child(cur, m.Role, m.Content)
		if id < 0 {
			id = t.add(cur, m.Role, m.Content, nil, now)
		}
		t.setLast(cur, id)
		cur = id
	}
	t.cur = cur
	return true
}

// leaf follows the branch down from id to where it was left.
func (t *Tree) leaf(id int) int {
	for id >= 0 && t.last[id] >= 0 {
		id = t.last[id]
	}
	return id
}

// rewind makes the branch end at id (-1: empty), or at a user message,
// just before it: a branch ends with a reply. The nodes after it stay, on
// a branch the next message leaves.
func (t *Tree) rewind(id int) error {
	if id < -1 || id >= len(t.nodes) {
		return fmt.Errorf("no message %d in this conversation", id)
	}
	if id >= 0 && t.nodes[id].Role == RoleUser {
		id = t.nodes[id].Parent
	}
	t.cur = id
	return nil
}

// switchTo moves the branch to the sibling delta steps from id (wrapping
// around), down to where that branch was left, and returns the sibling.
func (t *Tree) switchTo(id, delta int) (int, error) {
	ids, i := t.Siblings(id)
	if ids == nil {
		return 0, fmt.Errorf("no message %d in this conversation", id)
	}
	n := len(ids)
	to := ids[((i+delta)%n+n)%n]
	t.setLast(t.nodes[to].Parent, to)
	t.cur = t.leaf(to)
	return to, nil
}

// Clone is a deep copy of t.
func (t *Tree) Clone() *Tree {
	c := *t
	c.nodes = slices.Clone(t.nodes)
	for i := range c.nodes {
		if m := c.nodes[i].Made; m != nil {
			cp := *m
			c.nodes[i].Made = &cp
		}
	}
	c.last = slices.Clone(t.last)
	return &c
}

// savedTree is the tree as a .miku section holds it (sectionTree).
type savedTree struct {
	Nodes   []Node `json:"nodes"`
	Current int    `json:"current"`
	// Last is each node's child on its branch last, and RootLast the first
	// messages': where a switch to a sibling comes back to.
	Last     []int `json:"last"`
	RootLast int   `json:"root_last"`
}

// saved is t as its section holds it.
func (t *Tree) saved() savedTree {
	return savedTree{Nodes: t.nodes, Current: t.cur, Last: t.last, RootLast: t.rootLast}
}

// treeFrom checks a saved tree and returns it: every id is its index, a
// parent comes before its child, roles alternate (a reply under a user
// message and a user message under a reply or first), and the branch
// pointers point at children.
func treeFrom(st savedTree) (*Tree, error) {
	t := &Tree{nodes: st.Nodes, last: st.Last, rootLast: st.RootLast, cur: st.Current}
	if t.last == nil && len(t.nodes) > 0 {
		return nil, errors.New("the tree has no branch pointers")
	}
	if len(t.last) != len(t.nodes) {
		return nil, fmt.Errorf("the tree has %d nodes and %d branch pointers", len(t.nodes), len(t.last))
	}
	for i, n := range t.nodes {
		if n.ID != i {
			return nil, fmt.Errorf("node %d has id %d", i, n.ID)
		}
		if n.Parent < -1 || n.Parent >= i {
			return nil, fmt.Errorf("node %d's parent %d does not come before it", i, n.Parent)
		}
		want := RoleUser
		if n.Parent >= 0 && t.nodes[n.Parent].Role == RoleUser {
			want = RoleAssistant
		}
		if n.Role != want {
			return nil, fmt.Errorf("node %d is a %q message where a %q one belongs", i, n.Role, want)
		}
	}
	check := func(what string, parent, child int) error {
		if child == -1 {
			return nil
		}
		if child < 0 || child >= len(t.nodes) || t.nodes[child].Parent != parent {
			return fmt.Errorf("%s points at %d, not one of its messages", what, child)
		}
		return nil
	}
	if err := check("the first messages' branch", -1, t.rootLast); err != nil {
		return nil, err
	}
	for i, c := range t.last {
		if err := check(fmt.Sprintf("node %d's branch", i), i, c); err != nil {
			return nil, err
		}
	}
	if t.cur < -1 || t.cur >= len(t.nodes) {
		return nil, fmt.Errorf("the current message %d is not in the tree", t.cur)
	}
	answered := make([]bool, len(t.nodes))
	for _, n := range t.nodes {
		if n.Parent >= 0 {
			answered[n.Parent] = true
		}
	}
	for i, n := range t.nodes {
		if n.Role == RoleUser && !answered[i] {
			return nil, fmt.Errorf("message %d has no reply", i)
		}
	}
	if t.cur >= 0 && t.nodes[t.cur].Role != RoleAssistant {
		return nil, fmt.Errorf("the branch ends at message %d, which is not a reply", t.cur)
	}
	return t, nil
}
