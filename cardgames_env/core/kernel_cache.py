"""The compiled kernels' on-disk cache: kept only while everything they read is unchanged, and a
notice on stderr while they compile.

Numba's cache (``@njit(cache=True)``) is checked against the hash of the kernel's own source
file only. A kernel also reads global tables (often imported from another module: a rules
table, a scoring table) and calls other kernels, possibly in other files; Numba compiles those
into the kernel, so an edited table or callee would leave a stale kernel in the cache.
:func:`install` makes the freshness stamp of every kernel of this package also cover a digest of
what it reads: its bytecode and constants, the global arrays and numbers it names (also as
``module.NAME``), its closure and defaults, and the same, recursively, for every compiled
function it calls. A change to any of them recompiles the kernel on its next first call.

The first compilation of a process prints one line on stderr when stderr is a terminal (as the
progress bars do): what is compiling, and that it happens once (later runs load the cache).
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types
from typing import Any

import numpy as np

from .terminal import is_terminal

PACKAGE = __name__.partition(".")[0]
"""The package whose compiled functions get the stamp and the notice."""
NOTICE = (
    "{package}: compiling the Numba kernels ({module} first); this happens once, later runs "
    "load them from Numba's cache"
)
"""The line printed on stderr at the first compilation of a process."""

_noticed = False
_array_digests: dict[int, tuple[np.ndarray, bytes]] = {}


def _feed_array(digest: Any, array: np.ndarray) -> None:
    """Add an array's dtype, shape and bytes (digested once per array) to ``digest``."""
    known = _array_digests.get(id(array))
    if known is None or known[0] is not array:
        contiguous = np.ascontiguousarray(array)
        part = hashlib.sha256(f"{array.dtype.str}{array.shape}".encode())
        part.update(contiguous.tobytes())
        known = (array, part.digest())
        _array_digests[id(array)] = known
    digest.update(known[1])


def _code_names(code: types.CodeType) -> set[str]:
    """The global and attribute names of ``code`` and of the code objects nested in it."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _code_names(const)
    return names


def _feed_code(digest: Any, code: types.CodeType) -> None:
    """Add ``code``'s bytecode and constants (nested code objects too) to ``digest``."""
    digest.update(code.co_code)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            _feed_code(digest, const)
        else:
            digest.update(repr(const).encode())


def _feed_value(digest: Any, value: Any, names: set[str], seen: set[int], depth: int = 0) -> None:
    """Add what a kernel reads through ``value`` to ``digest``: arrays, numbers, strings and
    tuples of them, compiled functions (recursively), and a module's attributes in ``names``."""
    from numba.core.dispatcher import Dispatcher

    if isinstance(value, np.ndarray):
        _feed_array(digest, value)
    elif isinstance(value, (bool, int, float, complex, str, bytes, np.generic)):
        digest.update(repr(value).encode())
    elif isinstance(value, tuple):
        for item in value:
            _feed_value(digest, item, names, seen, depth)
    elif isinstance(value, Dispatcher):
        _feed_function(digest, value.py_func, seen)
    elif isinstance(value, (types.ModuleType, type)) and depth == 0:  # module.NAME, Class.MEMBER
        for name in sorted(names):
            if name in vars(value):
                digest.update(name.encode())
                _feed_value(digest, vars(value)[name], names, seen, depth + 1)


def _feed_function(digest: Any, func: types.FunctionType, seen: set[int]) -> None:
    """Add a Python function's code and everything it reads to ``digest`` (once per function)."""
    if id(func) in seen:
        return
    seen.add(id(func))
    code = func.__code__
    _feed_code(digest, code)
    names = _code_names(code)
    for name in sorted(names):
        if name in func.__globals__:
            digest.update(name.encode())
            _feed_value(digest, func.__globals__[name], names, seen)
    for cell in func.__closure__ or ():
        try:
            _feed_value(digest, cell.cell_contents, names, seen)
        except ValueError:  # an empty cell
            pass
    for default in func.__defaults__ or ():
        _feed_value(digest, default, names, seen)


def reads_digest(func: types.FunctionType) -> str:
    """SHA-256 of everything the compiled ``func`` reads (see the module docstring).

    Args:
        func: The Python function of a compiled kernel (``dispatcher.py_func``).
    """
    digest = hashlib.sha256()
    _feed_function(digest, func, set())
    return digest.hexdigest()


class _Stamp:
    """A kernel's freshness stamp: its source file's stamp and :func:`reads_digest`.

    Numba takes the stamp when the function is decorated, before the module has defined the
    tables and kernels that follow it; the digest is computed at the first comparison or save
    (the kernel's first call), and pickles as a plain tuple.
    """

    def __init__(self, source: Any, func: types.FunctionType):
        self._source = source
        self._func = func
        self._value: tuple[Any, str] | None = None

    def value(self) -> tuple[Any, str]:
        if self._value is None:
            self._value = (self._source, reads_digest(self._func))
        return self._value

    def __eq__(self, other: object) -> bool:
        return self.value() == (other.value() if isinstance(other, _Stamp) else other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(self.value())

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return (tuple, (self.value(),))


def _cache_impl() -> Any:
    """Numba's cache implementation class, which holds the list of locators (its name differs
    between Numba versions)."""
    from numba.core import caching

    return vars(caching).get("CacheImpl") or vars(caching)["_CacheImpl"]


def _locator_class() -> type:
    """The cache locator of this package's kernels: Numba's own choice of folder, with
    :class:`_Stamp` as the freshness stamp."""
    from numba.core import caching

    others = [cls for cls in _cache_impl()._locator_classes if not getattr(cls, "_cardgames", False)]

    class ReadsAwareLocator(caching._CacheLocator):
        _cardgames = True

        def __init__(self, inner: Any, func: types.FunctionType):
            self._inner = inner
            self._func = func

        def ensure_cache_path(self) -> None:
            self._inner.ensure_cache_path()

        def get_cache_path(self) -> str:
            return str(self._inner.get_cache_path())

        def get_source_stamp(self) -> Any:
            return _Stamp(self._inner.get_source_stamp(), self._func)

        def get_disambiguator(self) -> str:
            return str(self._inner.get_disambiguator())

        @classmethod
        def from_function(cls, py_func: Any, py_file: str) -> Any:
            if not str(getattr(py_func, "__module__", "")).startswith(PACKAGE + "."):
                return None
            for other in others:
                inner = other.from_function(py_func, py_file)
                if inner is not None:
                    return cls(inner, py_func)
            return None

    return ReadsAwareLocator


def _compile_listener() -> Any:
    """A Numba event listener printing :data:`NOTICE` at the first compilation of this package's
    kernels in the process, when stderr is a terminal."""
    from numba.core import event

    class CompileNotice(event.Listener):
        def on_start(self, ev: Any) -> None:
            global _noticed
            dispatcher = (ev.data or {}).get("dispatcher")
            module = str(getattr(getattr(dispatcher, "py_func", None), "__module__", ""))
            if _noticed or not module.startswith(PACKAGE + "."):
                return
            _noticed = True
            if is_terminal(sys.stderr):
                print(NOTICE.format(package=PACKAGE, module=module), file=sys.stderr, flush=True)

        def on_end(self, ev: Any) -> None:
            pass

    return CompileNotice()


_installed = False


def install() -> None:
    """Give this package's compiled kernels the stamp and the notice (idempotent; imports Numba).
    It must run before the first kernel is decorated: see :func:`install_with_numba`."""
    global _installed
    if _installed:
        return
    from numba.core import event

    _cache_impl()._locator_classes.insert(0, _locator_class())
    event.register("numba:compile", _compile_listener())
    _installed = True


class _ThenInstall(importlib.abc.Loader):
    """Numba's own loader, then :func:`install` once the module has run."""

    def __init__(self, inner: importlib.abc.Loader):
        self._inner = inner

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType | None:
        return self._inner.create_module(spec)

    def exec_module(self, module: types.ModuleType) -> None:
        self._inner.exec_module(module)
        try:
            install()
        except Exception as error:  # pragma: no cover - a Numba without these internals
            import warnings

            warnings.warn(f"compiled kernels are cached by source file only: {error}", stacklevel=2)


class _NumbaWatcher(importlib.abc.MetaPathFinder):
    """Finds nothing itself: at the import of ``numba`` it hands Numba's spec back with a loader
    that runs :func:`install` right after it (so before any kernel module decorates a kernel)."""

    def find_spec(
        self, fullname: str, path: Any, target: Any = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != "numba":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        if spec is not None and spec.loader is not None:
            spec.loader = _ThenInstall(spec.loader)
        return spec


def install_with_numba() -> None:
    """Run :func:`install` now when Numba is imported already, else right after its import
    (this package's import does not import Numba for it)."""
    if "numba" in sys.modules:
        install()
    elif not any(isinstance(finder, _NumbaWatcher) for finder in sys.meta_path):
        sys.meta_path.insert(0, _NumbaWatcher())
