"""Tornado handlers for logging into the Jupyter Server."""
from urllib.parse import urlparse, urlunparse

from tornado.escape import url_escape

from ..base.handlers import JupyterHandler


class LoginFormHandler(JupyterHandler):
    """The basic tornado login handler."""

    def _redirect_safe(self, url, default=None):
        """Redirect if url is on our PATH

        Full-domain redirects are allowed if they pass our CORS origin checks.

        Otherwise use default (self.base_url if unspecified).
        """
        if default is None:
            default = self.base_url
        # \\ is not valid in urls, but some browsers treat it as /
        # instead of %5C, causing `\\` to behave as `//`
        url = url.replace("\\", "%5C")

        # Prevent open redirect attacks by blocking URLs that start with //
        # These are protocol-relative URLs that can redirect to external sites
        if url.startswith("//"):
            self.log.warning("Not allowing login redirect to protocol-relative URL %r" % url)
            url = default
            self.redirect(url)
            return

        parsed = urlparse(url)
        path_only = urlunparse(parsed._replace(netloc="", scheme=""))
        if url != path_only or not (parsed.path + "/").startswith(self.base_url):
            # require that next_url be absolute path within our path
            allow = False
            # OR pass our cross-origin check
            if url != path_only:
                # full url may be `//host/path` (empty scheme == same scheme as request)
                # or `https://host/path`
                # or even `https:///host/path` (invalid, but accepted and ambiguously interpreted)
                if not parsed.scheme:
                    # full-domain redirect without scheme
                    parsed = parsed._replace(scheme=self.request.protocol)
                origin = f"{parsed.scheme}://{parsed.netloc}"
                if self.allow_origin:
                    allow = self.allow_origin == origin
                elif self.allow_origin_pat:
                    allow = bool(self.allow_origin_pat.match(origin))
            if not allow:
                # not allowed, use default
                self.log.warning("Not allowing login redirect to %r" % url)
                url = default
        self.redirect(url)

    def get(self):
        """Get the login form."""
        if self.current_user:
            next_url = self.get_argument("next", default=self.base_url)
            self._redirect_safe(next_url)
        else:
            self.write(self.render_template("login.html", next=url_escape(self.get_argument("next", default=self.base_url))))
