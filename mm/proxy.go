package mm

// proxyPreserved restricts base causality between memory operations to the
// pairs whose order survives the proxies they use (§8.9.5, "proxy-preserved
// base causality order", PTX ISA 7.5+). X precedes Y when X precedes Y in
// base causality and
//
//  1. both access the same virtual address through the generic proxy, or
//  2. both access the same virtual address through the same proxy from the
//     same CTA, or
//  3. they access the same virtual address and every non-generic end is
//     bridged by a proxy fence of its proxy in its CTA on the causality
//     path (fence.proxy.<proxy> after X, before Y), or
//  4. they access the same physical location through different virtual
//     addresses and, in addition to 3, a fence.proxy.alias lies on the path.
//
// Pairs that are not both memory operations keep base causality order.
func (c *checker) proxyPreserved(base rel) rel {
	out := newRel(c.n)
	for x := range c.ev {
		for row := base[x]; row != 0; row &= row - 1 {
			y := trailing(row)
			if c.preserved(base, x, y) {
				out.set(x, y)
			}
		}
	}
	return out
}

func (c *checker) preserved(base rel, x, y int) bool {
	ex, ey := &c.ev[x], &c.ev[y]
	if !ex.isMem() || !ey.isMem() {
		return true
	}
	if c.phys[x] != c.phys[y] {
		return false
	}
	sameV := c.sameLocation(x, y)
	if sameV && ex.Proxy == Generic && ey.Proxy == Generic {
		return true
	}
	if sameV && ex.Proxy == ey.Proxy && c.sameCTA(x, y) {
		return true
	}
	starts := c.proxyEnds(base, x, true)
	ends := c.proxyEnds(base, y, false)
	for _, a := range starts {
		for _, b := range ends {
			if sameV && base.has(a, b) && !(a == x && b == y) {
				return true
			}
			for f := range c.ev {
				if c.ev[f].Kind == EvFence && c.ev[f].Fence == FenceAlias && base.has(a, f) && base.has(f, b) {
					return true
				}
			}
		}
	}
	return false
}

// proxyEnds returns where a proxy-preserved path may start (from X) or end
// (at Y): the operation itself when it uses the generic proxy, and each
// proxy fence of its proxy in its CTA that follows it (start) or precedes it
// (end) in base causality.
func (c *checker) proxyEnds(base rel, x int, start bool) []int {
	var out []int
	e := &c.ev[x]
	if e.Proxy == Generic {
		out = append(out, x)
	}
	for f := range c.ev {
		fe := &c.ev[f]
		if fe.Kind != EvFence || fe.Fence != FenceProxy || fe.Proxy != e.Proxy || !c.sameCTA(f, x) {
			continue
		}
		if start && base.has(x, f) || !start && base.has(f, x) {
			out = append(out, f)
		}
	}
	return out
}
