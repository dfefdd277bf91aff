"""Peak resident memory of a block of work, shared by the benchmark scripts.

Linux only: ``/proc/self/clear_refs`` (write ``5``) resets the VmHWM high-water mark, so
the peak of each timed call is measured in the same run that is timed. Elsewhere the
measurement is off and reports NaN.
"""

from __future__ import annotations

import ctypes
import re


def _trim() -> None:
    try:
        ctypes.CDLL(None).malloc_trim(0)  # glibc
    except (OSError, AttributeError):
        pass


class PeakRSS:
    """Peak resident-set increase of a call (Linux: VmHWM reset via clear_refs), in MB."""

    def __init__(self) -> None:
        try:
            self._reset()
            self._read("VmHWM")
            self.ok = True
        except (OSError, AttributeError):
            self.ok = False

    @staticmethod
    def _reset() -> None:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")

    @staticmethod
    def _read(key: str) -> float:
        with open("/proc/self/status") as f:
            return int(re.search(rf"^{key}:\s+(\d+) kB", f.read(), re.M).group(1)) / 1024

    def start(self) -> None:
        if self.ok:
            _trim()  # free heap memory back to the OS, so that its reuse counts
            self._reset()
            self.base = self._read("VmRSS")

    def stop(self) -> float:
        return self._read("VmHWM") - self.base if self.ok else float("nan")
