package cache

import (
	"fmt"

	"github.com/gocurator/curator/framework"
)

// Explain describes what the cache knows of path and its parent, for a
// failing test's message.
func (c *Cache) Explain(path string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	parent, name := framework.SplitPath(path)
	s := fmt.Sprintf("%s: cached=%v", path, c.nodes[path] != nil)
	if pe := c.nodes[parent]; pe != nil {
		s += fmt.Sprintf(" parent listed=%v parent pzxid=%d stat pzxid=%d gone=%v", pe.listed(name), pe.pzxid, pe.stat.Pzxid, pe.gone)
	} else {
		s += " parent not cached"
	}
	c.q.mu.Lock()
	defer c.q.mu.Unlock()
	for _, k := range []key{{path, dataRead}, {path, childrenRead}, {parent, childrenRead}} {
		if t := c.q.tasks[k]; t != nil {
			s += fmt.Sprintf(" task %v: gen %d state %d", k, t.gen, t.state)
		}
	}
	return s + fmt.Sprintf(" gen %d outstanding %d", c.q.cur, c.q.outstanding)
}
