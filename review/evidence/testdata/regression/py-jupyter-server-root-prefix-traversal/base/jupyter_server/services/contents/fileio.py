"""Utilities for file-based Contents Managers."""
import os

from tornado.web import HTTPError


def to_os_path(path, root=""):
    """Convert an API path to a filesystem path under root."""
    parts = str(path).strip("/").split("/")
    parts = [p for p in parts if p != ""]  # remove duplicate splits
    return os.path.join(root, *parts)


class FileManagerMixin:
    """Mixin for ContentsAPI classes that interact with the filesystem."""

    root_dir = ""

    def _get_os_path(self, path):
        """Given an API path, return its file system path.

        Raises a 404 if the resulting path is not in the root directory.
        """
        root = os.path.abspath(self.root_dir)
        # to_os_path is not safe if path starts with a drive, since os.path.join discards first part
        if os.path.splitdrive(path)[0]:
            raise HTTPError(404, "%s is not a relative API path" % path)
        os_path = to_os_path(path, root)
        # validate os path
        # e.g. "foo\0" raises ValueError: embedded null byte
        try:
            os.lstat(os_path)
        except OSError:
            # OSError could be FileNotFound, PermissionError, etc.
            # those should raise (or not) elsewhere
            pass
        except ValueError:
            raise HTTPError(404, f"{path} is not a valid path") from None

        if not (os.path.abspath(os_path) + os.path.sep).startswith(root + os.path.sep):
            raise HTTPError(404, "%s is outside root contents directory" % path)
        return os_path
