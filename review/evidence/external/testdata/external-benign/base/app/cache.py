import hashlib


def key(parts):
    return hashlib.sha256("/".join(parts).encode()).hexdigest()
