"""Maintenance commands."""
import subprocess

import yaml


def legacy(cmd):
    # Already in the base: a shell command the caller builds.
    return subprocess.call(cmd, shell=True)


def status():
    return subprocess.call(["git", "status"])


def load_config(text):
    return yaml.load(text)


class Archiver:
    def archive(self, name):
        return subprocess.call("tar czf out.tgz " + name, shell=True)
