package scrape

import "sync"

type scrapePool struct {
	mtx                 sync.Mutex
	activeTargets       map[uint64]string
	droppedTargetsCount int
}

// Sync replaces the pool's targets; it runs on the discovery goroutine.
func (sp *scrapePool) Sync(targets []string, keep func(string) bool) {
	sp.mtx.Lock()
	defer sp.mtx.Unlock()
	sp.activeTargets = map[uint64]string{}
	sp.droppedTargetsCount = 0
	for i, t := range targets {
		if keep(t) {
			sp.activeTargets[uint64(i)] = t
		} else {
			sp.droppedTargetsCount++
		}
	}
}

// DroppedTargetsCount returns the number of targets dropped by relabelling.
func (sp *scrapePool) DroppedTargetsCount() int {
	sp.mtx.Lock()
	defer sp.mtx.Unlock()
	return sp.droppedTargetsCount
}

// Manager maintains a set of scrape pools.
type Manager struct {
	mtxScrape   sync.Mutex
	scrapePools map[string]*scrapePool
}

// TargetsDroppedCounts returns, per target set, how many targets were dropped.
func (m *Manager) TargetsDroppedCounts() map[string]int {
	m.mtxScrape.Lock()
	defer m.mtxScrape.Unlock()

	counts := make(map[string]int, len(m.scrapePools))
	for tset, sp := range m.scrapePools {
		counts[tset] = sp.DroppedTargetsCount()
	}
	return counts
}
