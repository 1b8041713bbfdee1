"""The Fortran intrinsics that move array elements without computing with them (reshape,
spread, pack, unpack, cshift, eoshift), for the IL interpreter: gfortran's element orders, in array
element (column-major) order. Their derivatives move the derivatives the same way."""
from __future__ import annotations

import numpy as np


def _flat(a):
    return np.asarray(a).ravel(order="F")


def f_reshape(source, shape, pad=None, order=None):
    """The elements of source (then of pad, repeated) in array element order, into shape."""
    shape = tuple(int(n) for n in np.asarray(shape).ravel())
    total = int(np.prod(shape))
    flat = _flat(source)
    if flat.size < total:
        if pad is None:
            raise ValueError("reshape: source too small and no pad")
        extra = _flat(pad)
        flat = np.concatenate([flat, np.resize(extra, total - flat.size)])
    if order is None:
        return np.reshape(flat[:total], shape, order="F")
    axes = [int(k) - 1 for k in np.asarray(order).ravel()]   # order(k): the k-th fastest dimension
    permuted = np.reshape(flat[:total], tuple(shape[a] for a in axes), order="F")
    return np.asfortranarray(np.transpose(permuted, np.argsort(axes)))


def f_spread(source, dim, ncopies):
    a = np.asarray(source)
    return np.asfortranarray(np.repeat(np.expand_dims(a, int(dim) - 1), max(int(ncopies), 0), axis=int(dim) - 1))


def f_pack(array, mask, vector=None):
    a = np.asarray(array)
    m = np.broadcast_to(np.asarray(mask, dtype=bool), a.shape)
    picked = _flat(a)[_flat(m)]
    if vector is None:
        return picked
    out = _flat(vector).copy()
    out[:picked.size] = picked
    return out


def f_unpack(vector, mask, field):
    """The elements of vector in array element order where mask holds, field elsewhere
    (the transpose of pack, the adjoint's)."""
    m = np.asarray(mask, dtype=bool)
    out = np.array(np.broadcast_to(np.asarray(field, dtype=np.asarray(vector).dtype), m.shape), order="F")
    flat = out.ravel(order="F")
    flat[_flat(m)] = _flat(vector)[:int(m.sum())]
    return np.reshape(flat, m.shape, order="F")


def _shifts(shift, array, dim):
    """The shift of each line along dim (a scalar shift, or one per line)."""
    axis = int(dim) - 1 if dim is not None else 0
    lines = np.delete(np.asarray(array).shape, axis)
    return axis, np.broadcast_to(np.asarray(shift, dtype=np.int64), tuple(lines))


def f_cshift(array, shift, dim=None):
    a = np.asarray(array)
    axis, shifts = _shifts(shift, a, dim)
    out = np.empty_like(a, order="F")
    for line in np.ndindex(shifts.shape):
        index = line[:axis] + (slice(None),) + line[axis:]
        out[index] = np.roll(a[index], -int(shifts[line]))
    return out


def f_eoshift(array, shift, boundary=None, dim=None):
    a = np.asarray(array)
    axis, shifts = _shifts(shift, a, dim)
    fill = np.broadcast_to(np.asarray(a.dtype.type(0) if boundary is None else boundary, dtype=a.dtype),
                           shifts.shape)
    out = np.empty_like(a, order="F")
    n = a.shape[axis]
    for line in np.ndindex(shifts.shape):
        index = line[:axis] + (slice(None),) + line[axis:]
        k, row, new = int(shifts[line]), a[index], np.full(n, fill[line], dtype=a.dtype)
        if 0 <= k < n:
            new[:n - k] = row[k:]
        elif -n < k < 0:
            new[-k:] = row[:n + k]
        out[index] = new
    return out
