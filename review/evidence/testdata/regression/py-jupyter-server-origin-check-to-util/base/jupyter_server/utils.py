"""Notebook related utilities"""
from __future__ import annotations

import warnings

from urllib.request import pathname2url as _pathname2url


class JupyterServerAuthWarning(RuntimeWarning):
    """Emitted when authentication configuration is insecure."""


pathname2url = _pathname2url
