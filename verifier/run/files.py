"""Files the tool writes (reports, pictures, caches, compiled kernels) are written whole or not at all: the data
goes to a temporary file in the same directory, which is then renamed over the target, so a reader or an
interrupted run never sees a half-written file.

A rename replaces whatever has the target's name, so the target is checked first: only a regular file (or no file)
is written.  A device, a FIFO, a folder or a socket is refused (renaming over ``/dev/full`` would replace the device
node), and so is a symbolic link, which is never replaced nor written through (``--output /dev/stdout`` is a link:
``-o -`` writes to standard output).  Missing folders are not created.  A new file gets the mode the umask gives
(``0666 & ~umask``, as ``open`` would), a replaced file keeps its mode.
"""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from pathlib import Path

from verifier.core.errors import LayoutError


class UnsafeTarget(LayoutError):
    """The target of a write is not a regular file, or its folder does not exist (exit status 2)."""


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def check_target(path: Path) -> int | None:
    """The mode of the regular file at ``path`` (None when there is none yet); ``UnsafeTarget`` when ``path`` is
    a symbolic link, something other than a regular file, or in a folder that does not exist."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        parent = path.parent
        if not parent.is_dir():
            raise UnsafeTarget(f"{path}: the folder {parent} does not exist (it is not created)") from None
        return None
    except (OSError, ValueError) as exc:
        raise UnsafeTarget(f"{path}: {getattr(exc, 'strerror', None) or exc}") from None
    if stat.S_ISLNK(st.st_mode):
        raise UnsafeTarget(f"{path} is a symbolic link: not written through nor replaced (name the file itself, "
                           "or - for standard output)")
    if stat.S_ISDIR(st.st_mode):
        raise UnsafeTarget(f"{path} is a folder: give a file name")
    if not stat.S_ISREG(st.st_mode):
        raise UnsafeTarget(f"{path} is not a regular file (a device, a FIFO or a socket): it is left alone")
    return stat.S_IMODE(st.st_mode)


def write_atomic(path: Path, data: str | bytes) -> None:
    """Write ``data`` (text as UTF-8) to ``path``, a regular file or a new name in an existing folder."""
    mode = check_target(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name[:64]}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)
            os.fchmod(f.fileno(), mode if mode is not None else 0o666 & ~_umask())
        if check_target(path) != mode:  # it changed while we wrote: leave it alone
            raise UnsafeTarget(f"{path} changed while the report was written; nothing was written")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def check_output(target: str, flag: str = "--output") -> None:
    """Refuse an unwritable output target before any work is done (``write_output`` checks it again)."""
    if target != "-":
        try:
            check_target(Path(target))
        except UnsafeTarget as exc:
            raise LayoutError(f"{flag} {exc}") from None


def write_output(target: str, data: str | bytes, flag: str = "--output") -> None:
    """A command's output file: ``-`` is standard output; anything else is written atomically, and any problem
    is a one-line ``LayoutError`` naming the flag."""
    if target == "-":
        if isinstance(data, bytes):
            buffer = getattr(sys.stdout, "buffer", None)
            if buffer is None:
                raise LayoutError(f"{flag} -: standard output takes no binary data here; name a file")
            sys.stdout.flush()
            buffer.write(data)
            buffer.flush()
        else:
            sys.stdout.write(data)
        return
    try:
        write_atomic(Path(target), data)
    except UnsafeTarget as exc:
        raise LayoutError(f"{flag} {exc}") from None
    except OSError as exc:
        raise LayoutError(f"{flag} {target}: {exc.strerror or exc}") from None
