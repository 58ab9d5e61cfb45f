"""Base Tornado handlers for the Jupyter server."""
from __future__ import annotations

import re
import warnings

from tornado import web

from jupyter_server.utils import JupyterServerAuthWarning


class JupyterHandler(web.RequestHandler):
    """Jupyter-specific extensions to authenticated handling."""

    allow_origin = ""
    allow_origin_pat = ""

    def _origin_matches_pat(self, origin: str) -> bool:
        """Check whether origin matches ``allow_origin_pat`` using full-string matching.

        Uses ``re.fullmatch`` so the pattern must cover the entire origin string,
        preventing prefix-bypass attacks.
        Emits a warning in case a user relied on prefix-style patterns.
        """
        if not self.allow_origin_pat:
            return False
        if re.fullmatch(self.allow_origin_pat, origin):
            return True
        if re.match(self.allow_origin_pat, origin):
            warnings.warn(
                f"allow_origin_pat {self.allow_origin_pat!r} only matched the request origin as a prefix. "
                "This has been replaced with a full string match. "
                "Update your pattern if you need to prefix-match the origin (e.g. append '.*')",
                UserWarning,
                stacklevel=2,
            )
        return False

    def check_origin(self, origin_to_satisfy_tornado: str = "") -> bool:
        """Check Origin for cross-site API requests, as Tornado's websocket handler does."""
        if self.allow_origin == "*" or (self.allow_origin_pat == "" and self.allow_origin == ""):
            return True
        origin = self.request.headers.get("Origin")
        if origin is None:
            return True
        origin = origin.lower()
        if self.allow_origin:
            allow = self.allow_origin == origin
        else:
            allow = self._origin_matches_pat(origin)
        if not allow:
            self.log.warning("Blocking Cross Origin API request for %s.  Origin: %s", self.request.path, origin)
        return allow
