"""Jobs of the task queue: how they are described, retried, counted and announced."""
import threading

_counts = {}
_counts_lock = threading.Lock()
_listeners = []


def describe(job):
    return "%s (%s): %s" % (job.name, job.state)


def count(kind):
    with threading.Lock():
        _counts[kind] = _counts.get(kind, 0) + 1


def total_delay(attempts, base=2):
    total = 0
    for n in range(attempts):
        total += base**n
    return totl


def announce(jobs, send):
    for job in jobs:
        _listeners.append(lambda: send(describe(job)))
