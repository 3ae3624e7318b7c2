"""`ext.build`'s kernels on disk, shared by processes (as Triton's
~/.triton/cache): a kernel one process compiled, another loads instead of
compiling it again.

An entry is what `Module.compile` returned (stages, binaries, shared
memory, workspace, messages, chip), zlib-compressed JSON in
`<folder>/<key>.kernel`. The key is a SHA-256 over the module's MLIR text
with its locations (what is compiled, and where its remarks point), the
target, chip, features, opt level and keep_stages, and the compiler: the
bytes of ext's own libraries this process runs (`_ext*.so`, every
`libExt*.so`, each MLIR plugin loaded), the file identity (path, size,
mtime) of the LLVM and MLIR libraries and of the device libraries the
serializers link (ext-rocm-toolkit, CUDA's libdevice). A rebuilt ext is
other bytes, so another key: no stale kernel is served. Where a library
this process runs is no longer the file at its path (rebuilt since it was
loaded) or /proc/self/maps cannot say what is loaded, the disk cache is
not used.

An entry is written to a temporary file in the folder and renamed over
its name (atomic): processes filling one folder at once each see a whole
entry or none. An entry that does not read back (corrupt, cut short,
another format) is a miss: the kernel is compiled again and rewritten.

The folder: `set_cache_dir(path)`, else `$EXT_CACHE_DIR`, else
`$XDG_CACHE_HOME/ext/kernels` (~/.cache/ext/kernels).
`set_cache_dir(None)` or `EXT_DISABLE_DISK_CACHE=1` turns it off.
"""

import base64
import ctypes
import glob
import hashlib
import json
import os
import re
import tempfile
import time
import warnings
import zlib
from typing import Dict, Optional

_FORMAT = 1
_SUFFIX = ".kernel"
_UNSET = object()
_override = _UNSET  # set_cache_dir's path, or None (off)
_warned = set()
# Digests of files by (path, device, inode, size, mtime): read once.
_digests: Dict[tuple, str] = {}
_plugins: Dict[tuple, bool] = {}

# ext's own code: hashed by content. The toolchain beneath it: identified
# by file (a package upgrade replaces the file). Not the run-time libraries
# run() loads (the emulator's, MLIR's runner utilities): they compile
# nothing, and a process that ran a kernel must find the same entries.
_OWN = re.compile(r"^(_ext\..*\.so|libExt(?!.*Runtime).*\.so(\..*)?)$")
_TOOLCHAIN = re.compile(r"^(libMLIR|libLLVM).*\.so(\..*)?$")
_PLUGIN_ENTRIES = ("mlirGetDialectPluginInfo", "mlirGetPassPluginInfo")
_CUDA_ROOTS = ("/usr/local/cuda", "/usr/lib/cuda")  # where ext's CMake looks


def cache_dir() -> Optional[str]:
    """The folder `ext.build` keeps kernels in across processes, or None
    when the disk cache is off.

        >>> ext.cache_dir()
        '/home/me/.cache/ext/kernels'
    """
    if _override is not _UNSET:
        return _override
    if os.environ.get("EXT_DISABLE_DISK_CACHE", "") not in ("", "0"):
        return None
    folder = os.environ.get("EXT_CACHE_DIR")
    if not folder:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"),
                                                                ".cache")
        folder = os.path.join(base, "ext", "kernels")
    return os.path.abspath(os.path.expanduser(folder))


def set_cache_dir(path) -> None:
    """Where `ext.build` keeps kernels across processes (overrides
    `$EXT_CACHE_DIR` and `EXT_DISABLE_DISK_CACHE`); None turns the disk
    cache off for this process.

        >>> ext.set_cache_dir("/scratch/ext-kernels")
    """
    global _override
    if path is not None and not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"the cache folder is a path or None, got {path!r}")
    _override = None if path is None else os.path.abspath(os.path.expanduser(os.fspath(path)))


def _reset_cache_dir() -> None:
    """Back to the environment's folder (for tests)."""
    global _override
    _override = _UNSET


def _mapped_files():
    """{path: (device, inode)} of the files mapped into this process, or
    None where that cannot be known or a mapped file was deleted."""
    try:
        with open("/proc/self/maps") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    files = {}
    for line in lines:
        fields = line.split(None, 5)
        if len(fields) < 6 or not fields[5].startswith("/"):
            continue
        path = fields[5]
        if path.endswith(" (deleted)"):
            if _OWN.match(os.path.basename(path[:-10])):
                return None  # ext's code was replaced while it runs
            continue
        major, minor = (int(x, 16) for x in fields[3].split(":"))
        files[path] = (os.makedev(major, minor), int(fields[4]))
    return files


def _digest(path, st) -> str:
    ident = (path, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    if ident not in _digests:
        h = hashlib.sha256()
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        _digests[ident] = h.hexdigest()
    return _digests[ident]


def _is_plugin(path, st) -> bool:
    """Whether the loaded library `path` is an MLIR plugin (ext.load_plugin)."""
    ident = (path, st.st_ino, st.st_mtime_ns)
    if ident not in _plugins:
        try:
            lib = ctypes.CDLL(path, mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
            _plugins[ident] = any(hasattr(lib, name) for name in _PLUGIN_ENTRIES)
        except OSError:
            _plugins[ident] = False
    return _plugins[ident]


def _file_identity(path):
    st = os.stat(path)
    return [os.path.realpath(path), st.st_size, st.st_mtime_ns]


def compiler_id() -> Optional[list]:
    """What the compiler is in this process, for the key: ext's libraries
    and plugins by content, the toolchain's by file; None when unknown."""
    mapped = _mapped_files()
    if mapped is None:
        return None
    own, toolchain = [], []
    for path, (dev, ino) in sorted(mapped.items()):
        name = os.path.basename(path)
        if ".so" not in name:
            continue
        try:
            st = os.stat(path)
        except OSError:
            return None
        if (st.st_dev, st.st_ino) != (dev, ino):
            if _OWN.match(name) or _TOOLCHAIN.match(name):
                return None  # rebuilt since this process loaded it
            continue
        if _OWN.match(name) or _is_plugin(path, st):
            own.append([name, _digest(path, st)])
        elif _TOOLCHAIN.match(name):
            toolchain.append([path, st.st_size, st.st_mtime_ns])
    if not any(name.startswith("_ext.") for name, _ in own):
        return None
    # The device libraries the serializers link: beside ext's libraries
    # (HSACO: ROCm's bitcode and ld.lld) and CUDA's libdevice (PTX).
    libs = {os.path.dirname(p) for p in mapped if os.path.basename(p).startswith("libExt")}
    linked = []
    for folder in sorted(os.path.join(d, "ext-rocm-toolkit") for d in libs):
        for root, _, names in sorted(os.walk(folder, followlinks=True)):
            linked += [_file_identity(os.path.join(root, n)) for n in sorted(names)]
    for root in _CUDA_ROOTS:
        linked += [_file_identity(p)
                   for p in sorted(glob.glob(os.path.join(root, "nvvm", "libdevice", "*.bc")))]
    return [own, toolchain, linked]


def key(module, target, chip, features, opt, keep_stages) -> Optional[str]:
    """The entry name of `module` compiled so by this compiler, or None
    when the disk cache is off or the compiler unknown."""
    if cache_dir() is None:
        return None
    try:
        compiler = compiler_id()
    except OSError:
        return None
    if compiler is None:
        return None
    text = module.to_string(True)  # with locations: the remarks' lines
    material = json.dumps([_FORMAT, compiler, target, chip, features, opt, bool(keep_stages),
                           text])
    return hashlib.sha256(material.encode()).hexdigest()


def _encode(compiled) -> dict:
    return {
        "stages": [[str(n), str(t)] for n, t in compiled["stages"]],
        "binaries": [[str(n), base64.b64encode(bytes(b)).decode("ascii")]
                     for n, b in compiled["binaries"].items()],
        "shared_memory": [[str(n), int(b)] for n, b in compiled["shared_memory"].items()],
        "workspace": int(compiled.get("workspace", 0)),
        "messages": [[str(s), str(f), int(line), str(t)]
                     for s, f, line, t in compiled.get("messages", [])],
        "chip": compiled.get("chip"),
        "diagnostics": str(compiled.get("diagnostics", "")),
    }


def _typed(value, kind):
    if not isinstance(value, kind) or isinstance(value, bool) and kind is int:
        raise TypeError(f"{value!r} is not {kind.__name__}")
    return value


def _decode(entry) -> dict:
    """`_encode`'s inverse, checking every field's type (TypeError)."""
    chip = entry["chip"]
    if chip is not None:
        _typed(chip, str)
    return {
        "stages": [(_typed(n, str), _typed(t, str)) for n, t in entry["stages"]],
        "binaries": {_typed(n, str): base64.b64decode(_typed(b, str), validate=True)
                     for n, b in entry["binaries"]},
        "shared_memory": {_typed(n, str): _typed(b, int) for n, b in entry["shared_memory"]},
        "workspace": _typed(entry["workspace"], int),
        "messages": [(_typed(s, str), _typed(f, str), _typed(line, int), _typed(t, str))
                     for s, f, line, t in entry["messages"]],
        "chip": chip,
        "diagnostics": _typed(entry["diagnostics"], str),
        "svgs": [],
    }


def load(name: Optional[str]) -> Optional[dict]:
    """The compiled kernel stored under `name`, or None: none, or one that
    does not read back whole (it is compiled again)."""
    folder = cache_dir()
    if name is None or folder is None:
        return None
    try:
        with open(os.path.join(folder, name + _SUFFIX), "rb") as f:
            data = f.read()
    except OSError:
        return None
    try:
        entry = json.loads(zlib.decompress(data))
        if entry["format"] != _FORMAT or entry["key"] != name:
            return None
        compiled = _decode(entry["compiled"])
    except (ValueError, KeyError, TypeError, AttributeError, zlib.error):
        return None
    return compiled if compiled["stages"] else None


def store(name: Optional[str], compiled) -> None:
    """Writes `compiled` under `name`: a temporary file in the folder, then
    renamed over the entry. A folder that cannot be written is said once
    (a RuntimeWarning) and the kernel is not stored."""
    folder = cache_dir()
    if name is None or folder is None:
        return
    data = zlib.compress(json.dumps({"format": _FORMAT, "key": name,
                                     "compiled": _encode(compiled)}).encode(), 6)
    try:
        os.makedirs(folder, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=folder, prefix=f".{name[:16]}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(temporary, os.path.join(folder, name + _SUFFIX))
        except BaseException:
            try:
                os.unlink(temporary)
            except OSError:
                pass
            raise
    except OSError as e:
        if folder not in _warned:
            _warned.add(folder)
            warnings.warn(f"ext: kernels are not kept in {folder}: {e} (set EXT_CACHE_DIR or "
                          "ext.set_cache_dir, or EXT_DISABLE_DISK_CACHE=1)", RuntimeWarning,
                          stacklevel=3)


def clear() -> int:
    """Deletes the folder's entries (and temporary files left by processes
    that died writing); returns how many entries."""
    folder = cache_dir()
    if folder is None or not os.path.isdir(folder):
        return 0
    removed = 0
    stale = time.time() - 3600  # a temporary file a process may still write
    for path in glob.glob(os.path.join(folder, "*" + _SUFFIX)) + \
            glob.glob(os.path.join(folder, ".*.tmp")):
        try:
            if path.endswith(".tmp") and os.stat(path).st_mtime > stale:
                continue
            os.unlink(path)
            removed += path.endswith(_SUFFIX)
        except OSError:
            pass
    return removed
