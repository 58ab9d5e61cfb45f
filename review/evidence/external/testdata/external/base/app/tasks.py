"""Jobs of the task queue: how they are described, retried and counted."""
import threading

_counts = {}
_counts_lock = threading.Lock()


def describe(job):
    return "%s (%s): %s" % (job.name, job.state)


def count(kind):
    with _counts_lock:
        _counts[kind] = _counts.get(kind, 0) + 1


def total_delay(attempts, base=2):
    total = 0
    for n in range(attempts):
        total += base**n
    return total
