"""requests.utils"""
import os
from urllib.parse import unquote, urlparse
from urllib.request import getproxies, proxy_bypass


def get_auth_from_url(url):
    """Given a url with authentication components, extract them into a tuple of
    username,password.
    """
    parsed = urlparse(url)
    try:
        auth = (unquote(parsed.username), unquote(parsed.password))
    except (AttributeError, TypeError):
        auth = ("", "")
    return auth


def should_bypass_proxies(url, no_proxy):
    """Returns whether we should bypass proxies or not."""
    if no_proxy is None:
        no_proxy = os.environ.get("no_proxy") or os.environ.get("NO_PROXY")
    netloc = urlparse(url).netloc
    if no_proxy:
        for host in no_proxy.replace(" ", "").split(","):
            if host and netloc.endswith(host):
                return True
    return bool(proxy_bypass(netloc))


def get_environ_proxies(url, no_proxy=None):
    """Return a dict of environment proxies."""
    if should_bypass_proxies(url, no_proxy=no_proxy):
        return {}
    return getproxies()
