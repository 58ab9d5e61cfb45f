import subprocess


def legacy(cmd):
    # Already in the base: a shell command the caller builds.
    return subprocess.call(cmd, shell=True)


def status():
    return subprocess.call(["git", "status"])
