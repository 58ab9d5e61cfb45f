import re
from enum import auto, Enum


class State(Enum):
    PREAMBLE = auto()
    PART = auto()
    DATA = auto()
    EPILOGUE = auto()
    COMPLETE = auto()


LINE_BREAK = b"(?:\r\n|\n|\r)"


class Data:
    def __init__(self, data, more_data):
        self.data = data
        self.more_data = more_data


NEED_DATA = object()


class MultipartDecoder:
    """Decodes a multipart message as bytes into Python events."""

    def __init__(self, boundary):
        self.buffer = bytearray()
        self.state = State.DATA
        self.boundary = boundary
        self.boundary_re = re.compile(
            rb"%s--%s(--[^\S\n\r]*%s?|[^\S\n\r]*%s)"
            % (LINE_BREAK, re.escape(boundary), LINE_BREAK, LINE_BREAK),
            re.MULTILINE,
        )

    def last_newline(self):
        try:
            last_nl = self.buffer.rindex(b"\n")
        except ValueError:
            last_nl = len(self.buffer)
        try:
            last_cr = self.buffer.rindex(b"\r")
        except ValueError:
            last_cr = len(self.buffer)

        return min(last_nl, last_cr)

    def receive_data(self, data):
        self.buffer.extend(data)

    def next_event(self):
        event = NEED_DATA
        if self.state == State.DATA:
            data, del_index, more_data = self._parse_data(self.buffer)
            del self.buffer[:del_index]
            if data or not more_data:
                event = Data(data=data, more_data=more_data)
        return event

    def _parse_data(self, data):
        # Body parts must start with CRLF (or CR or LF)
        boundary = b"--" + self.boundary

        if data.find(boundary) == -1:
            # No complete boundary in the buffer, but there may be
            # a partial boundary at the end. As the boundary
            # starts with either a nl or cr find the earliest and
            # return up to that as data.
            data_end = del_index = self.last_newline()
            # If amount of data after last newline is far from
            # possible length of partial boundary, we should
            # assume that there is no partial boundary in the buffer
            # and return all pending data.
            if (len(data) - data_end) > len(b"\n" + boundary):
                data_end = del_index = len(data)
            more_data = True
        else:
            match = self.boundary_re.search(data)
            if match is not None:
                if match.group(1).startswith(b"--"):
                    self.state = State.EPILOGUE
                else:
                    self.state = State.PREAMBLE
                data_end = match.start()
                del_index = match.end()
            else:
                data_end = del_index = self.last_newline()
            more_data = match is None

        return bytes(data[:data_end]), del_index, more_data
