"""Callbacks run when a job ends."""
import threading

_lock = threading.Lock()
_done = []


def finish(job):
    with _lock:
        _done.append(job)


def callbacks(jobs, send):
    return [send for _ in jobs]
