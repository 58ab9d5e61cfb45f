import hashlib
import random
import subprocess


def key(parts):
    return hashlib.sha256("/".join(parts).encode()).hexdigest()


def etag(body):
    # A weak hash for an HTTP cache validator, not for security.
    return hashlib.md5(body).hexdigest()


def jitter(seconds):
    return seconds * (1 + random.random() / 10)


def revision():
    out = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, check=True)
    return out.stdout.decode().strip()
