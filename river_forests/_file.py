"""Saving and loading a model without pickle: the file of a model's state (`_state`).

The file is a `safetensors <https://github.com/huggingface/safetensors>`_ file: an 8-byte
little-endian header length, a JSON header (each array's dtype, shape and byte range, and
``__metadata__``: the format's name and version, the estimator, the package version, the
state with arrays by reference, a CRC-32), then the arrays' bytes, each aligned to its item
size. The format is a few lines to read and write, a loader runs no code the file names, and
its arrays can be memory-mapped where they lie; numpy's ``.npz`` is a zip (no mapping of a
member) whose ``allow_pickle=False`` must be remembered by every reader. The safetensors
library itself is not needed: its numpy loader copies every array, and ours maps them.
"""

from __future__ import annotations

import functools
import json
import os
import warnings
import zlib

import numpy as np

from . import _state  # its to_state / from_state by name: a test or the fuzzer may stand in for them
from ._state import STATE_VERSION, ModelFileError

FORMAT = "river-forests"

#: a header longer than this is refused before it is parsed (a wide stream's names take a
#: few MB; the JSON of a crafted header could otherwise take many times its bytes)
MAX_HEADER = 64 * 2**20

#: how many times its compressed size a state's JSON may inflate to
INFLATION = 64

_DTYPES = {"F64": "<f8", "F32": "<f4", "I64": "<i8", "I32": "<i4", "U64": "<u8", "U8": "|u1",
           "I8": "|i1", "BOOL": "|b1"}
_CODES = {np.dtype(v): k for k, v in _DTYPES.items()}

__all__ = ["save", "load", "read_header"]


def _pack(arrays: dict, a: np.ndarray) -> list:
    """Append `a` to the list of its dtype's arrays (`arrays`, by dtype code); the reference
    the state keeps: [code, offset in items, shape]. The file holds one flat tensor a dtype."""
    code = _CODES[a.dtype]
    parts = arrays.setdefault(code, [0, []])
    ref = [code, parts[0], list(a.shape)]
    parts[0] += a.size
    parts[1].append(np.ascontiguousarray(a).reshape(-1))
    return ref


def _unpack(ref, tensors: dict) -> np.ndarray:
    """The array a reference of `_pack` names, a view of its dtype's tensor."""
    if not (isinstance(ref, list) and len(ref) == 3 and ref[0] in tensors
            and isinstance(ref[1], int) and isinstance(ref[2], list) and len(ref[2]) <= 8
            and all(isinstance(d, int) and not isinstance(d, bool) and d >= 0
                    for d in [ref[1]] + ref[2])):
        raise ModelFileError(f"the state names an array the file lacks: {ref!r}")
    flat = tensors[ref[0]]
    count = 1
    for d in ref[2]:
        count *= d
    if ref[1] + count > len(flat):
        raise ModelFileError(f"the state names an array past the end of its tensor: {ref!r}")
    return flat[ref[1]:ref[1] + count].reshape(ref[2])


def _encode(obj, arrays: dict, path: str):
    """`obj` as JSON-ready data, its arrays (and bytes) moved into `arrays` by name."""
    if obj is None or isinstance(obj, (bool, str)):
        return obj
    if isinstance(obj, int):
        return obj
    if isinstance(obj, float):
        return obj if obj == obj and abs(obj) != float("inf") else {"$float": repr(obj)}
    if isinstance(obj, np.ndarray):
        if obj.dtype not in _CODES:
            raise TypeError(f"an array of dtype {obj.dtype} cannot be saved ({path})")
        return {"$array": _pack(arrays, obj)}
    if isinstance(obj, bytes):
        return {"$bytes": _pack(arrays, np.frombuffer(obj, dtype=np.uint8))}
    if isinstance(obj, np.generic):
        if obj.dtype not in _CODES:
            raise TypeError(f"a value of dtype {obj.dtype} cannot be saved")
        return {"$scalar": _CODES[obj.dtype], "value": _encode(obj.item(), arrays, path)}
    if isinstance(obj, tuple):
        return {"$tuple": [_encode(v, arrays, f"{path}.{i}") for i, v in enumerate(obj)]}
    if isinstance(obj, list):
        if len(obj) >= 8 and all(type(v) is str for v in obj):  # feature names, labels
            data = [v.encode("utf-8", "surrogatepass") for v in obj]
            return {"$strings": [_pack(arrays, np.frombuffer(b"".join(data), dtype=np.uint8)),
                                 _pack(arrays, np.array([len(b) for b in data], dtype=np.int64))]}
        return [_encode(v, arrays, f"{path}.{i}") for i, v in enumerate(obj)]
    if isinstance(obj, dict):
        if all(isinstance(k, str) and not k.startswith("$") for k in obj):
            return {k: _encode(v, arrays, f"{path}.{k}") for k, v in obj.items()}
        return {"$dict": [[_encode(k, arrays, f"{path}.k{i}"), _encode(v, arrays, f"{path}.{i}")]
                          for i, (k, v) in enumerate(obj.items())]}
    raise TypeError(f"a {type(obj).__name__} cannot be saved ({path})")


def _decode(obj, arrays: dict):
    if isinstance(obj, list):
        return [_decode(v, arrays) for v in obj]
    if not isinstance(obj, dict):
        return obj
    if len(obj) == 1:
        (key, value), = obj.items()
        if key == "$array" or key == "$bytes":
            a = _unpack(value, arrays)
            return a.tobytes() if key == "$bytes" else a
        if key == "$strings":
            if not isinstance(value, list) or len(value) != 2:
                raise ModelFileError("a list of strings is its bytes and their lengths")
            data, lengths = _unpack(value[0], arrays), _unpack(value[1], arrays)
            if data.dtype != np.uint8 or lengths.dtype != np.int64 or data.ndim != 1 \
                    or lengths.ndim != 1 or (len(lengths) and (lengths.min() < 0
                                                               or lengths.sum() != len(data))):
                raise ModelFileError("a list of strings' lengths do not add up to its bytes")
            raw, out, at = data.tobytes(), [], 0
            try:
                for n in lengths.tolist():
                    out.append(raw[at:at + n].decode("utf-8", "surrogatepass"))
                    at += n
            except UnicodeDecodeError:
                raise ModelFileError("a string is not UTF-8") from None
            return out
        if key == "$float":
            if value not in ("nan", "inf", "-inf"):
                raise ModelFileError(f"not a float: {value!r}")
            return float(value)
        if key == "$tuple":
            if not isinstance(value, list):
                raise ModelFileError("a tuple must be a list")
            return tuple(_decode(v, arrays) for v in value)
        if key == "$dict":
            if not isinstance(value, list) or not all(isinstance(p, list) and len(p) == 2 for p in value):
                raise ModelFileError("a dict must be a list of pairs")
            try:
                return {_decode(k, arrays): _decode(v, arrays) for k, v in value}
            except TypeError:
                raise ModelFileError("a dict key is not hashable") from None
    if set(obj) == {"$scalar", "value"}:
        dtype = _DTYPES.get(obj["$scalar"])
        value = obj["value"]
        if dtype is None or isinstance(value, (dict, list, str)) or value is None:
            raise ModelFileError(f"not a numpy scalar: {obj!r}")
        try:
            return np.array(value, dtype=dtype)[()]
        except (OverflowError, ValueError, TypeError):
            raise ModelFileError(f"not a numpy scalar: {obj!r}") from None
    return {k: _decode(v, arrays) for k, v in obj.items()}


def _bytes_of(a: np.ndarray) -> memoryview:
    """A C-contiguous array's bytes, without a copy."""
    return memoryview(a.reshape(-1).view(np.uint8))


def layout(arrays: dict) -> tuple[list, dict, int]:
    """The file's tensors (`arrays`, by name) in their order, the largest items first so that
    every tensor starts on a multiple of its item size; the header's entries; the data's
    size in bytes."""
    names = sorted(arrays, key=lambda k: (-arrays[k].dtype.itemsize, k))
    entries, offset = {}, 0
    for name in names:
        a = arrays[name]
        entries[name] = {"dtype": _CODES[a.dtype], "shape": list(a.shape),
                         "data_offsets": [offset, offset + a.nbytes]}
        offset += a.nbytes
    return names, entries, offset


def header_bytes(meta: dict, entries: dict) -> bytes:
    """The header: ``__metadata__`` first, then the entries, padded with spaces so that the
    data after it (and its 8-byte length) starts 8-byte aligned."""
    header = json.dumps({"__metadata__": meta, **entries}, separators=(",", ":")).encode()
    return header + b" " * (-(8 + len(header)) % 8)


def save(model, path) -> int:
    """Save `model` (any river_forests estimator, mid-stream, detectors included) to the
    file `path`; returns the file's size in bytes. The file holds no pickle and no code
    (see the module's docstring for its layout); :func:`load` reads it back.

    >>> import os, tempfile
    >>> from river import datasets, evaluate, metrics
    >>> import river_forests

    >>> stream = list(datasets.Phishing())
    >>> model = river_forests.MondrianForestClassifier(n_estimators=5, seed=42)
    >>> for x, y in stream[:500]:
    ...     model.learn_one(x, y)
    >>> path = os.path.join(tempfile.mkdtemp(), "model.rf")
    >>> river_forests.save(model, path) > 0
    True

    The loaded model goes on as the saved one would have, to the last bit:

    >>> loaded = river_forests.load(path, mmap=True)
    >>> evaluate.progressive_val_score(stream[500:], loaded, metrics.Accuracy())
    Accuracy: 91.60%
    >>> evaluate.progressive_val_score(stream[500:], model, metrics.Accuracy())
    Accuracy: 91.60%
    """
    state = _state.to_state(model)
    packed: dict = {}
    encoded = _encode(state, packed, "state")
    arrays = {code: np.concatenate(parts) for code, (_, parts) in packed.items()}
    # the state's JSON, compressed (its keys repeat tree after tree), is a tensor of its own
    arrays["state"] = np.frombuffer(zlib.compress(
        json.dumps(encoded, separators=(",", ":"), allow_nan=False).encode(), 6), dtype=np.uint8)
    names, entries, offset = layout(arrays)
    crc = 0
    for name in names:
        crc = zlib.crc32(_bytes_of(arrays[name]), crc)
    meta = {"format": FORMAT, "format_version": str(STATE_VERSION),
            "estimator": state["estimator"], "package_version": state["package"],
            "params": json.dumps(_encode(state["params"], {}, "params"), allow_nan=False),
            "crc32": f"{crc:08x}"}
    header = header_bytes(meta, entries)
    tmp = f"{os.fspath(path)}.tmp{os.getpid()}"
    try:
        with open(tmp, "wb") as f:
            f.write(len(header).to_bytes(8, "little"))
            f.write(header)
            for name in names:
                f.write(_bytes_of(arrays[name]))
        os.replace(tmp, path)  # a reader never sees half a file
    except BaseException as e:
        # no temporary file is left behind, and the error names the user's path, not ours
        try:
            os.remove(tmp)
        except OSError:
            pass
        if not isinstance(e, OSError):
            raise
        folder = os.path.dirname(os.path.abspath(os.fspath(path)))
        why = e.strerror or str(e)
        if not os.path.isdir(folder):
            why += f" (the folder {folder} does not exist)"
        raise OSError(e.errno, f"cannot save the model: {why}", os.fspath(path)) from None
    return 8 + len(header) + offset


def _naming_the_file(function):
    """`function(path, ...)`, whose :class:`ModelFileError` begins with the file's `path`
    (as ``gzip: x.gz: not in gzip format`` does) and holds it as its ``path``."""

    @functools.wraps(function)
    def named(path, *args, **kwargs):
        try:
            return function(path, *args, **kwargs)
        except ModelFileError as e:
            if e.path is None:
                e.path = path
                shown = f"file descriptor {path}" if isinstance(path, int) else os.fsdecode(path)
                e.args = (f"{shown}: {e}",)
            raise

    return named


@_naming_the_file
def read_header(path) -> dict:
    """The file's ``__metadata__`` (format, version, estimator, package version, the
    parameters as JSON, checksum) without loading the model; :class:`ModelFileError` if it is not one."""
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        return _header(f, size)[0]


#: how a model file begins, after its header's 8-byte length: `header_bytes` writes the
#: metadata first (safetensors files of other libraries may begin so too: their metadata
#: then names no river-forests format)
MAGIC = b'{"__metadata__":'


def _not_a_model(head: bytes, size: int) -> str:
    """Why a file whose first bytes are `head` (of `size`) is not a model file."""
    if size == 0:
        return "not a river-forests model file: the file is empty"
    if head[:1] == b"\x80":  # pickle's protocols 2 to 5 begin so
        return ("not a river-forests model file: it looks like a pickle (a pickled model loads "
                "with pickle.load; river_forests.save writes model files)")
    return ("not a river-forests model file: a model file begins with an 8-byte length and "
            "its JSON metadata")


def _header(f, size):
    head = f.read(8 + len(MAGIC))
    if head[8:] != MAGIC:
        if len(head) > 8 and MAGIC.startswith(head[8:]) \
                and int.from_bytes(head[:8], "little") > len(head) - 8:
            raise ModelFileError(f"truncated model file: {size} bytes is shorter than its "
                                 "header")
        if f'"format":"{FORMAT}"'.encode() in head + f.read(1 << 12):
            raise ModelFileError("corrupt model file: the beginning of its header is damaged")
        raise ModelFileError(_not_a_model(head, size))
    n = int.from_bytes(head[:8], "little")
    if n > size - 8 or n > MAX_HEADER or n < len(MAGIC):
        raise ModelFileError(f"truncated or corrupt model file: a header of {n:,} bytes in a "
                             f"file of {size:,}")
    try:
        header = json.loads((MAGIC + f.read(n - len(MAGIC))).decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise ModelFileError("corrupt model file: its header is not JSON") from None
    if not isinstance(header, dict) or not isinstance(header.get("__metadata__"), dict):
        raise ModelFileError("not a river-forests model file: no metadata in its header")
    meta = header.pop("__metadata__")
    if meta.get("format") != FORMAT:
        raise ModelFileError("not a river-forests model file: its metadata names the format "
                             f"{meta.get('format')!r}")
    version = meta.get("format_version")
    if not isinstance(version, str) or not (version.isascii() and version.isdigit()):
        raise ModelFileError(f"corrupt model file: format version {version!r}")
    if int(version) > STATE_VERSION:
        raise ModelFileError(f"this file is of format version {version}, newer than this "
                             f"river_forests reads ({STATE_VERSION}): upgrade river_forests")
    if not isinstance(meta.get("crc32"), str) or not isinstance(header.get("state"), dict):
        raise ModelFileError("corrupt model file: no state or checksum")
    return meta, header, 8 + n


def _entries(header: dict, data_size: int) -> dict:
    """name -> (dtype, shape, begin, end), checked: known dtypes, byte ranges that match the
    shapes and tile the data exactly (as safetensors requires)."""
    out = {}
    for name, e in header.items():
        if not isinstance(e, dict) or set(e) != {"dtype", "shape", "data_offsets"}:
            raise ModelFileError(f"corrupt model file: array {name!r}'s entry")
        dtype = _DTYPES.get(e["dtype"])
        shape, offs = e["shape"], e["data_offsets"]
        if dtype is None or not isinstance(shape, list) or not isinstance(offs, list) \
                or len(offs) != 2 or len(shape) > 8 \
                or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0
                           for v in shape + offs):
            raise ModelFileError(f"corrupt model file: array {name!r}'s entry")
        count = 1
        for d in shape:
            count *= d
        if offs[1] - offs[0] != count * np.dtype(dtype).itemsize or offs[1] > data_size:
            raise ModelFileError(f"corrupt model file: array {name!r}'s bytes do not match its "
                                 "shape or lie past the end of the file")
        out[name] = (np.dtype(dtype), tuple(shape), offs[0], offs[1])
    at = 0
    for _, _, begin, end in sorted(out.values(), key=lambda v: (v[2], v[3])):
        if begin != at:
            raise ModelFileError("corrupt model file: its arrays overlap or leave gaps")
        at = end
    if at != data_size:
        raise ModelFileError(f"truncated or corrupt model file: its arrays hold {at:,} bytes "
                             f"of {data_size:,}")
    return out


@_naming_the_file
def load(path, mmap: bool = False):
    """The model saved in the file `path` by :func:`save` (or by an earlier release: see
    :data:`MIGRATIONS`), ready to predict and to go on learning exactly as the saved model
    would have.

    With ``mmap=True`` the file is memory-mapped (privately: the file is never written) and
    the trees' node arrays are read where they lie in it, not copied: a process that only
    predicts holds in memory only the pages its predictions touch, and many processes
    serving one file share them. The first ``learn_one`` (or any change) copies the trees
    into memory of their own, then learns exactly as a model loaded without ``mmap``.

    A mapped model cannot be changed or broken by the file. The mapping holds a read lease
    on it (Linux's ``F_SETLEASE``): a process that opens the file to write it (``cp new.rf
    model.rf``), truncates it or edits it is held by the kernel until this process has
    copied the pages it maps into memory of its own; the model then answers as the model
    it loaded, from that copy. To deploy a new model, :func:`save` to the served path (or
    write elsewhere and ``os.replace`` it there): a rename leaves the mapped file untouched,
    and the next ``load`` reads the new one. Where no lease can be had (macOS and Windows,
    a file this user does not own, a file open for writing, a network file system), the
    file is read into memory instead, with a ``RuntimeWarning`` saying why.

    Every part of the file is checked before a model is built (its checksum, then the
    header, then the state): a file that is not a whole model of this format raises
    :class:`ModelFileError`, and nothing is allocated past what its arrays hold."""
    try:
        f = open(path, "rb")
    except OSError as e:  # the path begins the message (`_naming_the_file`)
        raise ModelFileError(f"cannot open the file: {e.strerror or e}") from None
    with f:
        mapping = _map(f, path) if mmap else None  # first: the lease keeps the file still
        size = mapping.size if mapping is not None else os.fstat(f.fileno()).st_size
        meta, header, start = _header(f, size)
        entries = _entries(header, size - start)
        crc = 0
        while True:
            chunk = f.read(1 << 16)
            if not chunk:
                break
            crc = zlib.crc32(chunk, crc)
        if f"{crc:08x}" != meta["crc32"]:
            raise ModelFileError("corrupt model file: its checksum does not match its contents")
        if mapping is not None and mapping.state != "mapped":
            raise ModelFileError(_WRITER_CAME)
        if mapping is not None:
            data = np.frombuffer(mapping, dtype=np.uint8)[start:]
        else:
            f.seek(start)
            data = np.frombuffer(f.read(), dtype=np.uint8)
    arrays = {}
    for name, (dtype, shape, begin, end) in entries.items():
        arrays[name] = data[begin:end].view(dtype).reshape(shape)
    text = arrays.pop("state")
    if text.dtype != np.uint8 or text.ndim != 1 \
            or any(a.ndim != 1 or name != _CODES.get(a.dtype) for name, a in arrays.items()):
        raise ModelFileError("corrupt model file: its tensors are not a state and one flat "
                             "tensor a dtype")
    # a crafted stream could inflate to anything. A real state's JSON is its keys (names and
    # labels are tensors): it inflates 4 to 6 times (the files of tests/data/format1) to a
    # few KiB a tree. It may inflate to at most INFLATION times its compressed size, and
    # half the file's size and 1 MiB (the text and its decoded copy: the file's size) with
    # 16 KiB a tree the metadata names
    try:
        trees = int(json.loads(meta.get("params", "{}")).get("n_estimators", 1))
    except (TypeError, ValueError, AttributeError, RecursionError, OverflowError):
        trees = 1
    limit = min(MAX_HEADER, INFLATION * len(text) + (1 << 16),
                (size + (1 << 20)) // 2 + (1 << 15) * max(1, min(trees, 2**16)))
    try:
        inflate = zlib.decompressobj()
        raw = bytearray()
        view = memoryview(text)
        while True:  # in steps: the buffer never overshoots the limit
            raw += inflate.decompress(view, 1 << 16)
            view = inflate.unconsumed_tail
            if len(raw) > limit:
                raise ModelFileError(f"corrupt model file: its state inflates past {limit:,} "
                                     "bytes")
            if inflate.eof or not view:
                break
        if not inflate.eof:
            raise ModelFileError("corrupt model file: its state is truncated")
        del text, view, inflate
        state = _decode(json.loads(raw), arrays)
        del raw
    except ModelFileError:
        raise
    except zlib.error as e:
        raise ModelFileError(f"corrupt model file: its state does not inflate ({e})") from None
    except (ValueError, RecursionError) as e:  # UnicodeDecodeError, JSONDecodeError
        raise ModelFileError(f"corrupt model file: its state is not JSON ({e})") from None
    version = state.get("version") if isinstance(state, dict) else None
    if not isinstance(version, int) or isinstance(version, bool) \
            or version != int(meta["format_version"]):
        raise ModelFileError("corrupt model file: its state disagrees with its metadata")
    if version < 1:  # version 0 is a pickle's __dict__, never a file
        raise ModelFileError("corrupt model file: a file's state is of format version 1 or later")
    # the metadata (outside the checksum) says what the state says
    try:
        told = (meta.get("estimator"), meta.get("package_version"), json.loads(meta.get("params")))
    except (TypeError, ValueError, RecursionError):
        told = None
    if told != (state.get("estimator"), state.get("package"),
                _encode(state.get("params"), {}, "params") if isinstance(state.get("params"), dict)
                else None):
        raise ModelFileError("corrupt model file: its metadata disagrees with its state")
    model = _state.from_state(state, mapping is not None)
    if mapping is not None:
        # the checks read every page; the kernel may drop them from this process now (they
        # stay in the page cache, shared by every process that maps the file, and a
        # prediction's read brings back the ones it needs): nothing was written to them
        mapping.settle()
    return model


#: a writer opened the file while a mapped load read it: what was read may be of two files
_WRITER_CAME = "it was opened for writing while it was loading: load it again once it is written"


def _map(f, path):
    """The file open as `f` mapped under a read lease (`_core/_mapping.pyx`), or None, with a
    warning saying why, where no lease can be had: the loader then reads the file."""
    from ._core._mapping import LeaseBroken, Mapping

    if os.fstat(f.fileno()).st_size == 0:
        return None  # not a model: the header's check says so
    try:
        return Mapping(f.fileno())
    except LeaseBroken:
        raise ModelFileError(_WRITER_CAME) from None
    except OSError as e:
        warnings.warn(f"river_forests.load({os.fspath(path)!r}, mmap=True): the model is read "
                      f"into memory, not mapped: {e.strerror} (a model is mapped only under a "
                      "read lease, which keeps its file from changing under it)", RuntimeWarning,
                      stacklevel=4)  # the caller of load, past its `_naming_the_file` wrapper
        return None
