"""Callbacks run when a job ends."""
import threading

_lock = threading.Lock()
_done = []


def finish(job):
    with _lock:
        _done.append(job)


def finished():
    with _lock:
        return list(_done)


def callbacks(jobs, send):
    out = []
    for job in jobs:
        out.append(lambda job=job: send(job))
    return out


def label(job, state=None):
    if state is None:
        state = "done" if job in finished() else "running"
    return "%s: %s" % (job, state)
