"""An implementation of a kernel connection over ZMQ streams."""
from jupyter_client.session import Session


class ZMQChannelsWebsocketConnection:
    """A Jupyter Server Websocket Connection to the kernel's ZMQ channels."""

    def __init__(self, multi_kernel_manager, kernel_id, session_key, log):
        self.multi_kernel_manager = multi_kernel_manager
        self.kernel_id = kernel_id
        self.session_key = session_key
        self.log = log
        self.channels = {}
        self.session = Session()

    def create_stream(self):
        """Open one ZMQ stream per channel of the kernel."""
        km = self.multi_kernel_manager.get_kernel(self.kernel_id)
        identity = self.session.bsession
        for channel in ("iopub", "shell", "control", "stdin"):
            meth = getattr(km, "connect_" + channel)
            self.channels[channel] = meth(identity=identity)

    async def connect(self):
        """Connect to the kernel, restoring the buffered channels of a reconnecting client."""
        buffer_info = self.multi_kernel_manager.get_buffer(self.kernel_id, self.session_key)
        if buffer_info and buffer_info["session_key"] == self.session_key:
            self.log.info("Restoring connection for %s", self.session_key)
            if self.multi_kernel_manager.ports_changed(self.kernel_id):
                # If the kernel's ports have changed (some restarts trigger this)
                # then reset the channels so nudge() is using the correct iopub channel.
                # Close the stale buffered channels first to avoid leaking FDs.
                for stream in buffer_info["channels"].values():
                    if not stream.closed():
                        stream.close()
                self.create_stream()
            else:
                # The kernel's ports have not changed; use the channels captured in the buffer
                self.channels = buffer_info["channels"]
            replay_buffer = buffer_info["buffer"]
            for channel, msg_list in replay_buffer:
                self.handle_outgoing_message(channel, msg_list)
        else:
            self.create_stream()

    def handle_outgoing_message(self, channel, msg_list):
        """Send a buffered message to the client."""
        self.log.debug("replaying %s message", channel)
