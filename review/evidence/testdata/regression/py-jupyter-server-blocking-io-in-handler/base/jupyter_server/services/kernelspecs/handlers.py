"""Tornado handlers for kernel specifications."""
import asyncio
import glob
import json
import os

from jupyter_core.utils import ensure_async
from tornado import web

from ...base.handlers import APIHandler

pjoin = os.path.join


def kernelspec_model(handler, name, spec_dict, resource_dir):
    """Load a KernelSpec by name and return the REST API model"""
    d = {"name": name, "spec": spec_dict, "resources": {}}
    # Add resource files if they exist
    for resource in ["kernel.js", "kernel.css"]:
        if os.path.exists(pjoin(resource_dir, resource)):
            d["resources"][resource] = handler.static_url(pjoin("kernelspecs", name, resource))
    for logo_file in glob.glob(pjoin(resource_dir, "logo-*")):
        fname = os.path.basename(logo_file)
        no_ext, _ = os.path.splitext(fname)
        d["resources"][no_ext] = handler.static_url(pjoin("kernelspecs", name, fname))
    return d


def is_kernelspec_model(spec_dict):
    """Returns True if spec_dict is already in proper form."""
    return isinstance(spec_dict, dict) and "name" in spec_dict and "spec" in spec_dict and "resources" in spec_dict


class KernelSpecHandler(APIHandler):
    """A handler for an individual kernel spec."""

    @web.authenticated
    async def get(self, kernel_name):
        """Get a kernel spec model."""
        ksm = self.kernel_spec_manager
        try:
            spec = await ensure_async(ksm.get_kernel_spec(kernel_name))
        except KeyError as e:
            raise web.HTTPError(404, "Kernel spec %s not found" % kernel_name) from e
        if is_kernelspec_model(spec):
            model = spec
        else:
            model = await asyncio.to_thread(
                kernelspec_model, self, kernel_name, spec.to_dict(), spec.resource_dir
            )
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps(model))
