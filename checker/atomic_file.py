"""Replace a file whole: readers see the old content or the new, never half of it."""

from __future__ import annotations

import os
from collections.abc import Iterable


def replace_file(path: str, data: bytes | str | Iterable[str], mode: int = 0o666) -> None:
    """Write ``data`` (text, or pieces of text, is written as UTF-8) to a temporary file next to ``path``,
    named after this process so that parallel processes never share one, and rename it into place; the
    temporary file is removed when anything fails. ``mode`` is narrowed by the umask, as ``open()`` does."""
    tmp = f"{path}.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        if not isinstance(data, (bytes, bytearray, memoryview)):
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.writelines([data] if isinstance(data, str) else data)
        else:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
